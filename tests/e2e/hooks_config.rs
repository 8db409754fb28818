//! `[[hooks]]` configuration through the binary: `doctor` and `config show` say a project's
//! hook waits for `warden trust` and list it once trusted; managed policy makes every hook
//! fail closed (`policy.hooks_fail_closed`) or refuses any but its own
//! (`policy.managed_hooks_only`).

use serde_json::Value;

use crate::support::{TestEnv, stderr, stdout};

const LINT: &str = "[[hooks]]\nevent = \"PostToolUse\"\nmatcher = \"Edit|Write\"\ncommand = \"sh lint.sh\"\nfs = \"read-write\"\nenv = [\"LINT_TOKEN\"]\n";

#[test]
fn a_held_project_hook_waits_for_warden_trust_and_is_listed_after() {
    let env = TestEnv::new();
    env.write("lint.sh", "exit 0\n");
    env.user_config("[policy.project_tool_grants]\nenv = [\"LINT_TOKEN\"]\n");
    env.untrusted_project_config(LINT);
    let doctor = stdout(&env.run(&["doctor"]));
    let line = doctor
        .lines()
        .find(|l| l.contains("hook lint (PostToolUse"))
        .unwrap_or_default();
    assert!(line.contains("waiting for warden trust"), "{doctor}");
    let show = stdout(&env.run(&["config", "show"]));
    assert!(show.contains("waiting for warden trust"), "{show}");
    // `warden trust` shows the hook's event, matcher, command, grants and script.
    let trusted = env.trusted();
    assert!(
        trusted.contains(
            "hook:lint (command hook at PostToolUse on Edit|Write): `sh lint.sh`: fs read-write, no network, env LINT_TOKEN, runs lint.sh"
        ),
        "{trusted}"
    );
    let doctor = stdout(&env.run(&["doctor"]));
    assert!(
        doctor.contains(
            "ok    hook lint (PostToolUse matcher \"Edit|Write\") `sh lint.sh`: fs read-write"
        ),
        "{doctor}"
    );
    assert!(!doctor.contains("waiting for warden trust"), "{doctor}");
    let out = env.run(&["config", "show", "--json"]);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["hooks"][0]["trusted"], true);
}

#[test]
fn managed_policy_makes_hooks_fail_closed_and_can_refuse_all_but_its_own() {
    let env = TestEnv::new();
    let user = env.user_config(
        "[[hooks]]\nname = \"guard\"\nevent = \"PreToolUse\"\ncommand = \"true\"\non_error = \"allow\"\n",
    );
    let on_error = |env: &TestEnv| {
        let out = env.run(&["config", "show", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        value["hooks"][0]["on_error"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(on_error(&env), "allow");
    env.managed_config("[policy]\nhooks_fail_closed = true\n");
    assert_eq!(on_error(&env), "deny");
    let doctor = stdout(&env.run(&["doctor"]));
    assert!(
        doctor.contains("hook guard (PreToolUse) `true`"),
        "{doctor}"
    );
    assert!(doctor.contains("on_error deny"), "{doctor}");
    env.managed_config("[policy]\nmanaged_hooks_only = true\n");
    let out = env.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("hooks.guard")
            && err.contains("managed_hooks_only")
            && err.contains(&user.display().to_string()),
        "{err}"
    );
}

/// A name a hook gives itself is its own: an unnamed hook of another layer whose default
/// (its script's stem) is the same takes `-2`, and neither is refused.
#[test]
fn a_given_name_stays_and_an_unnamed_hook_of_the_same_script_is_numbered() {
    let env = TestEnv::new();
    env.user_config("[[hooks]]\nevent = \"Stop\"\ncommand = \"sh ~/bin/lint.sh\"\n");
    env.project_config(
        "[[hooks]]\nname = \"lint\"\nevent = \"PreToolUse\"\ncommand = \"sh tools/check.sh\"\n",
    );
    let out = env.run(&["config", "show", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let names: Vec<(&str, &str)> = value["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap_or_default(),
                h["origin"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(names, [("lint-2", "user"), ("lint", "project")]);
}

/// `policy.locked = ["hooks"]`: only the managed layer's hooks run, the others are named in a
/// warning; a managed hook fails closed by default, a user's open.
#[test]
fn locked_hooks_leave_only_the_managed_ones_which_fail_closed_by_default() {
    let env = TestEnv::new();
    let user = env.user_config("[[hooks]]\nevent = \"Stop\"\ncommand = \"sh mine.sh\"\n");
    let listed = |env: &TestEnv| {
        let out = env.run(&["config", "show", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        let hooks: Vec<(String, String, String)> = value["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                let text = |k: &str| h[k].as_str().unwrap_or_default().to_owned();
                (text("name"), text("origin"), text("on_error"))
            })
            .collect();
        hooks
    };
    env.managed_config("[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"sh /opt/corp/scan.sh\"\n");
    let hooks = listed(&env);
    let expected = [("scan", "managed", "deny"), ("mine", "user", "allow")];
    assert_eq!(
        hooks,
        expected.map(|(n, o, e)| (n.to_owned(), o.to_owned(), e.to_owned()))
    );
    env.managed_config(
        "[policy]\nlocked = [\"hooks\"]\n\n[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"sh /opt/corp/scan.sh\"\n",
    );
    assert_eq!(
        listed(&env),
        [("scan".to_owned(), "managed".to_owned(), "deny".to_owned())]
    );
    let out = env.run(&["config", "show"]);
    let warned = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        warned.contains(&format!(
            "{}: `hooks` is locked by managed policy; the setting was ignored",
            user.display()
        )),
        "{warned}"
    );
}
