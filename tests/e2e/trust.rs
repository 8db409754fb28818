//! Project trust through the real binary: a cloned project's plugins (its `.warden/config.toml`
//! `[[plugins]]` entries) never run until the person trusts the workspace with `warden trust`,
//! and trust is asked again when what the project declares changes (an entry, a grant, a
//! component's bytes). Managed policy may pre-trust workspaces or forbid trusting. A project's
//! tool may not be granted a secret-looking variable or a host unless the user allows it.

use std::path::PathBuf;

use serde_json::Value;
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n";

/// A project config declaring tool `probe` (a copy of the hostile tool inside `.warden/`, so
/// that its bytes can be replaced) with `grants`, and interceptor `note`, which adds a system
/// item before every model request: a visible trace of running.
fn cloned_project(env: &TestEnv, grants: &str) -> String {
    let dir = env.workspace().join(".warden");
    std::fs::create_dir_all(&dir).unwrap();
    if !dir.join("probe.wasm").exists() {
        std::fs::copy(fixtures::hostile_tool(), dir.join("probe.wasm")).unwrap();
    }
    format!(
        "{MODEL}[[plugins]]\nname = \"probe\"\nkind = \"tool\"\npath = \"probe.wasm\"\n{grants}\n\n\
         [[plugins]]\nname = \"note\"\nkind = \"interceptor\"\npath = {:?}\n[plugins.config]\nmode = \"pre\"\n",
        fixtures::hostile().display().to_string()
    )
}

/// `warden ARGS` against `server`.
fn run_against(env: &TestEnv, server: &MockServer, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(args);
    output_within(cmd, HANG_LIMIT)
}

/// The tool names offered and whether the interceptor's note was sent, in request `index`.
fn traces(server: &MockServer, index: usize) -> (Vec<String>, bool) {
    let request = &server.requests()[index].body;
    let tools = request["tools"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|t| t["function"]["name"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    let noted = request["messages"].to_string().contains("pre-request note");
    (tools, noted)
}

fn sessions(env: &TestEnv) -> usize {
    std::fs::read_dir(env.state_home().join("sessions")).map_or(0, |d| d.count())
}

fn ws(env: &TestEnv) -> String {
    env.workspace().to_string_lossy().into_owned()
}

#[test]
fn a_cloned_projects_plugins_run_only_once_trusted_and_trust_is_asked_again_on_change() {
    let env = TestEnv::new();
    // A project's tool is given only the variables the user lists for projects.
    env.user_config("[policy.project_tool_grants]\nenv = [\"LANG\"]\n");
    env.untrusted_project_config(&cloned_project(&env, "env = [\"LANG\"]"));
    let server = MockServer::start().unwrap();
    let root = ws(&env);

    // Untrusted: `run` exits 2 naming what waits and the command; nothing ran, nothing was
    // sent, no session was made.
    let out = run_against(&env, &server, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("warden trust -C {root}")), "{err}");
    assert!(err.contains("plugin:probe (tool)"), "{err}");
    assert!(err.contains("plugin:note (interceptor)"), "{err}");
    assert!(err.contains("not trusted"), "{err}");
    assert!(server.requests().is_empty());
    assert_eq!(sessions(&env), 0);
    // `preview` behaves like `run`.
    let out = env.run(&["preview", "hello"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("warden trust -C"), "{}", stderr(&out));

    // `doctor` says what waits; `config show` marks the entries.
    let out = env.run(&["doctor"]);
    let text = stdout(&out);
    assert!(
        text.contains("waiting for trust: plugin:note (interceptor), plugin:probe (tool)"),
        "{text}"
    );
    assert!(
        text.contains(&format!("run `warden trust -C {root}`")),
        "{text}"
    );
    assert!(
        text.contains("plugin probe (tool, project layer) not loaded: not trusted"),
        "{text}"
    );
    let out = env.run(&["config", "show"]);
    let text = stdout(&out);
    assert!(text.contains("plugin probe (tool)"), "{text}");
    assert!(
        text.contains("untrusted: not loaded until `warden trust -C"),
        "{text}"
    );
    let out = env.run(&["config", "show", "--json"]);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["plugins"][0]["trusted"], false, "{value}");

    // `warden trust` prints what it trusts, with the grants.
    let out = env.trust();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(text.contains(&format!("trusted {root} (digest ")), "{text}");
    assert!(text.contains("probe (tool)"), "{text}");
    assert!(
        text.contains(r#"grants: fs = "none", env = ["LANG"], allowed_hosts = []"#),
        "{text}"
    );
    assert!(text.contains("note (interceptor)"), "{text}");
    let out = env.run(&["config", "show", "--json"]);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["plugins"][0]["trusted"], true, "{value}");

    // Trusted: both plugins run.
    server.push(Reply::text("hi"));
    let out = run_against(&env, &server, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (tools, noted) = traces(&server, 0);
    assert!(tools.contains(&"probe".to_owned()), "{tools:?}");
    assert!(noted);

    // A changed grant is asked again.
    env.untrusted_project_config(&cloned_project(&env, "env = [\"LANG\"]\nfs = \"read\""));
    let out = run_against(&env, &server, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("changed since it was trusted: plugin:probe (tool)"),
        "{err}"
    );
    assert!(
        !err.contains("plugin:note"),
        "only what changed waits: {err}"
    );
    assert_eq!(server.requests().len(), 1);
    let out = env.trust();
    let text = stdout(&out);
    assert!(text.contains("changed since it was last trusted"), "{text}");
    assert!(text.contains(r#"grants.fs: "none" → "read""#), "{text}");
    server.push(Reply::text("hi"));
    let out = run_against(&env, &server, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // New bytes in the component file are new code.
    std::fs::copy(
        fixtures::grep_tool(),
        env.workspace().join(".warden/probe.wasm"),
    )
    .unwrap();
    let out = run_against(&env, &server, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("plugin:probe (tool)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.requests().len(), 2);
    assert_eq!(env.trust().status.code(), Some(0));

    // Revoked: untrusted again.
    let out = env.run(&["trust", "-C", &root, "--revoke"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("revoked"), "{}", stdout(&out));
    let out = run_against(&env, &server, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not trusted"), "{}", stderr(&out));
    let out = env.run(&["trust", "-C", &root, "--revoke", "--json"]);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["revoked"], false);
}

#[test]
fn trust_takes_the_workspace_as_an_argument_too() {
    let env = TestEnv::new();
    env.untrusted_project_config(&cloned_project(&env, "env = []"));
    let root = ws(&env);
    let elsewhere = env.root_path().join("home");
    // `warden trust DIR`, from another directory, is `warden trust -C DIR`.
    let out = env.run_in(&elsewhere, &["trust", &root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("trusted {root} (digest ")),
        "{}",
        stdout(&out)
    );
    // `.` from inside the workspace names it too; `--revoke` takes it the same way.
    let out = env.run(&["trust", ".", "--revoke"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(&root), "{}", stdout(&out));
    let out = env.run(&["doctor"]);
    assert!(
        stdout(&out).contains("waiting for trust"),
        "{}",
        stdout(&out)
    );
    // Both forms at once is a usage error, not a guess between them.
    let out = env.run_in(&elsewhere, &["trust", &root, "-C", &root]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_workspace_without_project_plugins_needs_no_trust() {
    let env = TestEnv::new();
    env.untrusted_project_config(&format!("{MODEL}[worker]\nmax_steps = 3\n"));
    let server = MockServer::start().unwrap();
    server.push(Reply::text("hi"));
    let out = run_against(&env, &server, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("trust"), "{}", stderr(&out));
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("nothing needs trust"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_projects_resolver_settings_wait_for_trust_too() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.untrusted_project_config(&format!(
        "[fileref]\nresolver = {:?}\n[fileref.resolver_config]\nmode = \"panic\"\n",
        fixtures::hostile_resolver().display().to_string()
    ));
    let out = env.run(&["run", "read @a.txt"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("resolver (resolver)"), "{err}");
}

#[test]
fn managed_policy_pre_trusts_paths_or_forbids_trust() {
    let env = TestEnv::new();
    env.untrusted_project_config(&cloned_project(&env, ""));
    let server = MockServer::start().unwrap();
    let root = ws(&env);
    let parent = env
        .workspace()
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();

    // Set anywhere but the managed layer, the keys are ignored with a warning.
    env.user_config(&format!(
        "[policy]\ntrusted_paths = [\"{parent}/**\"]\nallow_trust = false\n"
    ));
    let out = run_against(&env, &server, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`policy.trusted_paths` is only honoured in the managed layer"),
        "{err}"
    );
    assert!(
        err.contains("`policy.allow_trust` is only honoured in the managed layer"),
        "{err}"
    );
    env.user_config("");

    // Pre-trusted by the operator: the project's plugins load, no digest asked.
    env.managed_config(&format!("[policy]\ntrusted_paths = [\"{parent}/**\"]\n"));
    server.push(Reply::text("hi"));
    let out = run_against(&env, &server, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (tools, noted) = traces(&server, 0);
    assert!(tools.contains(&"probe".to_owned()) && noted, "{tools:?}");

    // A relative glob is an error of the managed file.
    env.managed_config("[policy]\ntrusted_paths = [\"repos/**\"]\n");
    let out = env.run(&["run", "hello"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("policy.trusted_paths"),
        "{}",
        stderr(&out)
    );

    // Trusting forbidden: `warden trust` exits 2 naming file and key; the project's plugins
    // never load, even where they were trusted before; the rest of the project applies.
    env.managed_config("");
    assert_eq!(env.trust().status.code(), Some(0));
    let managed = env.managed_config("[policy]\nallow_trust = false\n");
    let out = env.trust();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`policy.allow_trust = false`"), "{err}");
    assert!(err.contains(&managed.display().to_string()), "{err}");
    server.push(Reply::text("hi"));
    let out = run_against(&env, &server, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("managed policy forbids trusting projects")
            .count(),
        1,
        "{err}"
    );
    let (tools, noted) = traces(&server, 1);
    assert!(!tools.contains(&"probe".to_owned()) && !noted, "{tools:?}");
    // The project's model settings still apply.
    assert_eq!(server.requests()[1].body["model"], "m");
    let out = env.run(&["trust", "-C", &root, "--revoke"]);
    assert_eq!(out.status.code(), Some(0), "revoking stays possible");
}

#[test]
fn a_corrupt_trust_file_is_an_error_and_trusts_nothing() {
    let env = TestEnv::new();
    env.untrusted_project_config(&cloned_project(&env, ""));
    assert_eq!(env.trust().status.code(), Some(0));
    let file: PathBuf = env.state_home().join("trust.json");
    std::fs::write(
        &file,
        "{\"format\": \"warden-trust\", \"version\": 1, \"workspaces\": {",
    )
    .unwrap();
    let out = env.run(&["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(err.contains("no workspace is trusted"), "{err}");
    // `warden trust` does not overwrite it.
    let out = env.trust();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&file).unwrap().ends_with('{'));
}

fn tool_config(grants: &str) -> String {
    format!(
        "{MODEL}[[plugins]]\nname = \"probe\"\nkind = \"tool\"\npath = {:?}\n{grants}\n",
        fixtures::hostile_tool().display().to_string()
    )
}

#[test]
fn a_project_tool_gets_no_secret_variable_and_no_host_unless_the_user_allows_it() {
    let env = TestEnv::new();
    let project = env.project_config(&tool_config("env = [\"GITHUB_TOKEN\"]"));
    let out = env.run(&["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}: key `plugins.probe.env`", project.display())),
        "{err}"
    );
    assert!(
        err.contains("the project layer grants env \"GITHUB_TOKEN\""),
        "{err}"
    );
    assert!(err.contains("`policy.project_tool_grants.env`"), "{err}");
    assert!(err.contains("config/warden/config.toml"), "{err}");

    // The project cannot allow it itself.
    env.project_config(&format!(
        "[policy.project_tool_grants]\nenv = [\"GITHUB_TOKEN\"]\n{}",
        tool_config("env = [\"GITHUB_TOKEN\"]")
    ));
    let out = env.run(&["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the project layer grants env \"GITHUB_TOKEN\""),
        "{err}"
    );

    // The user allows it: the tool gets the variable.
    env.user_config("[policy.project_tool_grants]\nenv = [\"GITHUB_TOKEN\"]\n");
    env.project_config(&tool_config("env = [\"GITHUB_TOKEN\"]"));
    let server = MockServer::start().unwrap();
    server.script_tool_call(
        "e1",
        "probe",
        serde_json::json!({"action": "env GITHUB_TOKEN"}),
        "done",
    );
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .env("GITHUB_TOKEN", "ghp_test")
        .args(["run", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The tool got it (what it printed is the value), and the model never sees it: a known
    // secret is masked in every tool result (docs/secrets.md).
    let told = server.requests()[1].body["messages"].to_string();
    assert!(told.contains("[REDACTED:GITHUB_TOKEN]"), "{told}");
    assert!(!told.contains("ghp_test"), "{told}");

    // A host likewise.
    env.project_config(&tool_config("allowed_hosts = [\"api.example.com\"]"));
    let out = env.run(&["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("key `plugins.probe.allowed_hosts`"), "{err}");
    assert!(
        err.contains("`policy.project_tool_grants.allowed_hosts`"),
        "{err}"
    );
    env.user_config("[policy.project_tool_grants]\nallowed_hosts = [\"api.example.com\"]\n");
    let out = env.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_variable_the_host_sets_cannot_be_granted() {
    let env = TestEnv::new();
    let file = env.user_config(&tool_config("env = [\"WARDEN_LOG_LEVEL\"]"));
    let out = env.run(&["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}: key `plugins.probe.env`", file.display())),
        "{err}"
    );
    assert!(
        err.contains("`WARDEN_LOG_LEVEL` is set by warden itself"),
        "{err}"
    );
}

#[test]
fn a_tool_output_over_the_built_in_ceiling_is_a_plugin_failure() {
    let env = TestEnv::new();
    env.user_config(&tool_config("max_output_bytes = 10000000"));
    let server = MockServer::start().unwrap();
    server.script_tool_call(
        "b1",
        "probe",
        serde_json::json!({"action": "big 5000000"}),
        "done",
    );
    let out = run_against(&env, &server, &["run", "go"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches(
            "plugin `probe`: max_output_bytes = 10000000 clamped to 1048576 (the built-in ceiling)"
        )
        .count(),
        1,
        "{err}"
    );
    let sent = server.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("over the cap of 1048576"),
        "{}",
        &sent[..sent.len().min(2000)]
    );
    assert!(sent.len() < 100_000, "the output never reached the model");
}
