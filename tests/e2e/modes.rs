//! Permission modes through the real binary, the mock model server and the `edit-tool` sample
//! (`fs = "read-write"`, so its `put_file` is a Write): `read-only` refuses the write and
//! the model sees why; `ask` under `run` refuses without `--yes` and runs with it; `auto-edit`
//! runs it; managed `policy.max_mode` refuses a higher `--mode` or `[tools] mode` (exit 2,
//! naming file and key); a project raising the mode waits for trust, lowering it does not.

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};
use crate::tool_plugins::{MODEL, tool_entry};

/// The model's one call: write `a.txt`.
fn write_call() -> (&'static str, &'static str, Value) {
    (
        "w1",
        "put_file",
        json!({"path": "a.txt", "content": "written"}),
    )
}

/// The user config: the model and the edit tool (a user's plugin needs no project trust).
fn user_with_edit_tool(env: &TestEnv, extra: &str) -> std::path::PathBuf {
    env.user_config(&format!(
        "{MODEL}{extra}{}",
        tool_entry("edit", &fixtures::edit_tool(), "fs = \"read-write\"")
    ))
}

/// `warden run ARGS… go` with the model calling `put_file` once then answering `done`:
/// exit code, stderr, and the result the model saw (when a second request was made).
fn run(env: &TestEnv, args: &[&str]) -> (Option<i32>, String, Option<String>) {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("Writing.", &[write_call()]));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .args(args)
        .arg("go");
    let out = output_within(cmd, HANG_LIMIT);
    let result = server.requests().get(1).and_then(|r| {
        r.body["messages"]
            .as_array()?
            .iter()
            .find(|m| m["role"] == "tool")
            .and_then(|m| m["content"].as_str())
            .map(str::to_owned)
    });
    (out.status.code(), stderr(&out), result)
}

fn written(env: &TestEnv) -> bool {
    env.workspace().join("a.txt").exists()
}

#[test]
fn read_only_refuses_the_write_and_the_model_sees_the_mode_and_how_to_change_it() {
    let env = TestEnv::new();
    user_with_edit_tool(&env, "");
    let (code, err, result) = run(&env, &["--mode", "read-only", "-v"]);
    // Every write the model asked for was denied: exit 4.
    assert_eq!(code, Some(4), "{err}");
    let result = result.unwrap_or_default();
    assert!(
        result.contains("tool call denied by mode: read-only: `put_file` writes files"),
        "{result}"
    );
    assert!(result.contains("--mode"), "{result}");
    assert!(!written(&env));
    // `run -v` shows the mode and each call's outcome, the denial included.
    assert!(err.contains("warden: mode read-only"), "{err}");
    assert!(
        err.contains("warden: ✗ put_file a.txt — denied by mode: read-only"),
        "{err}"
    );
    // The audit log names the mode as the decider.
    let audit = std::fs::read_dir(env.state_home().join("sessions"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|d| std::fs::read_to_string(d.path().join("audit.jsonl")).unwrap_or_default())
        .collect::<String>();
    assert!(audit.contains("\"by\":\"mode\""), "{audit}");
    assert!(audit.contains("\"mode\":\"read-only\""), "{audit}");
}

#[test]
fn ask_refuses_under_run_without_yes_and_runs_with_it_and_auto_edit_runs_it() {
    let env = TestEnv::new();
    user_with_edit_tool(&env, "");
    // `ask` is the default: nobody to ask under `run`.
    let (code, err, result) = run(&env, &[]);
    // Every write the model asked for was denied: exit 4.
    assert_eq!(code, Some(4), "{err}");
    let result = result.unwrap_or_default();
    assert!(
        result.contains("mode `ask` asks before a tool that writes files")
            && result.contains("--yes"),
        "{result}"
    );
    assert!(err.contains("tool call `put_file` denied"), "{err}");
    assert!(!written(&env));

    let (code, err, result) = run(&env, &["--yes"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        result.unwrap_or_default().contains("wrote 7 bytes"),
        "{err}"
    );
    assert!(written(&env));

    std::fs::remove_file(env.workspace().join("a.txt")).unwrap();
    let (code, err, result) = run(&env, &["--mode", "auto-edit"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        result.unwrap_or_default().contains("wrote 7 bytes"),
        "{err}"
    );
    assert!(written(&env));

    // The same from configuration.
    std::fs::remove_file(env.workspace().join("a.txt")).unwrap();
    user_with_edit_tool(&env, "[tools]\nmode = \"auto-edit\"\n\n");
    let (code, err, _) = run(&env, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(written(&env));
}

#[test]
fn managed_max_mode_refuses_a_higher_flag_or_setting_naming_file_and_key() {
    let env = TestEnv::new();
    let managed = env.managed_config("[policy]\nmax_mode = \"ask\"\n");
    user_with_edit_tool(&env, "");
    let (code, err, result) = run(&env, &["--mode", "full-auto"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(result.is_none(), "no model request is made");
    assert!(err.contains(&managed.display().to_string()), "{err}");
    assert!(err.contains("policy.max_mode"), "{err}");
    assert!(err.contains("full-auto"), "{err}");
    // A mode at or below the cap is fine.
    let (code, err, _) = run(&env, &["--mode", "read-only"]);
    // Every write the model asked for was denied: exit 4.
    assert_eq!(code, Some(4), "{err}");

    let user = user_with_edit_tool(&env, "[tools]\nmode = \"full-auto\"\n\n");
    let (code, err, result) = run(&env, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(result.is_none());
    assert!(err.contains(&user.display().to_string()), "{err}");
    assert!(err.contains("tools.mode"), "{err}");
    assert!(err.contains("policy.max_mode"), "{err}");
    assert!(!written(&env));

    // `max_mode` outside the managed layer is ignored with a warning.
    let env = TestEnv::new();
    user_with_edit_tool(&env, "[policy]\nmax_mode = \"read-only\"\n\n");
    let (code, err, _) = run(&env, &["--yes"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("`policy.max_mode` is only honoured in the managed layer"),
        "{err}"
    );
    assert!(written(&env));
}

#[test]
fn managed_policy_can_lock_the_mode() {
    let env = TestEnv::new();
    env.managed_config("[tools]\nmode = \"read-only\"\n[policy]\nlocked = [\"tools.mode\"]\n");
    user_with_edit_tool(&env, "[tools]\nmode = \"full-auto\"\n\n");
    let (code, err, result) = run(&env, &["--mode", "auto-edit"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("`tools.mode` is locked by managed policy"),
        "{err}"
    );
    let (code, err, result2) = run(&env, &[]);
    // Every write the model asked for was denied: exit 4.
    assert_eq!(code, Some(4), "{err}");
    assert!(result.is_none());
    assert!(
        err.contains("`tools.mode` is locked by managed policy; the setting was ignored"),
        "{err}"
    );
    assert!(
        result2
            .unwrap_or_default()
            .contains("tool call denied by mode: read-only"),
        "{err}"
    );
}

#[test]
fn a_project_raising_the_mode_waits_for_trust_and_lowering_it_does_not() {
    let env = TestEnv::new();
    user_with_edit_tool(&env, "");
    let project = env.untrusted_project_config("[tools]\nmode = \"full-auto\"\n");
    let (code, err, result) = run(&env, &["--yes"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(result.is_none());
    assert!(err.contains(&project.display().to_string()), "{err}");
    assert!(err.contains("tools.mode (mode)"), "{err}");
    assert!(err.contains("warden trust -C"), "{err}");
    assert!(!written(&env));
    // Trusted, it applies: the write runs unasked.
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = format!("{}{}", stdout(&out), stderr(&out));
    assert!(shown.contains("tools.mode = full-auto"), "{shown}");
    let (code, err, _) = run(&env, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(written(&env));

    // Lowering needs no trust.
    let env = TestEnv::new();
    user_with_edit_tool(&env, "[tools]\nmode = \"full-auto\"\n\n");
    env.untrusted_project_config("[tools]\nmode = \"read-only\"\n");
    let (code, err, result) = run(&env, &[]);
    // Every write the model asked for was denied: exit 4.
    assert_eq!(code, Some(4), "{err}");
    assert!(
        result
            .unwrap_or_default()
            .contains("tool call denied by mode: read-only"),
        "{err}"
    );
    assert!(!written(&env));
}

#[test]
fn config_show_and_doctor_name_the_mode_and_its_layer() {
    let env = TestEnv::new();
    env.managed_config("[policy]\nmax_mode = \"full-auto\"\n");
    let user = user_with_edit_tool(&env, "[tools]\nmode = \"auto-edit\"\n\n");
    let out = env.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = stdout(&out);
    let line = shown
        .lines()
        .find(|l| l.starts_with("tools.mode "))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(line.contains("\"auto-edit\"  [user]"), "{line}");
    assert!(line.contains(&user.display().to_string()), "{line}");
    assert!(shown.contains("policy.max_mode"), "{shown}");

    let out = env.run(&["doctor"]);
    let shown = stdout(&out);
    assert!(
        shown.contains(&format!(
            "info  permission mode auto-edit (from user {}); managed policy allows up to full-auto",
            user.display()
        )),
        "{shown}"
    );

    // A project's raise waiting for trust is said so.
    env.untrusted_project_config("[tools]\nmode = \"full-auto\"\n");
    let out = env.run(&["config", "show"]);
    assert!(
        stderr(&out).contains("`tools.mode = \"full-auto\"` from the project layer applies only once the project is trusted"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["doctor"]);
    assert!(
        stdout(&out)
            .contains("permission mode full-auto asked by the project layer waits for trust"),
        "{}",
        stdout(&out)
    );
}
