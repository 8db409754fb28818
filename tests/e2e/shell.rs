//! The built-in `shell` tool through the real binary, each confinement claim of `docs/shell.md`
//! checked by a command the mock model calls: no write outside the workspace or the private
//! temporary directory, the user's keys and the workspace's denied files unreadable,
//! `.git`/`.warden` read-only, no network unless granted, no secrets in the environment, every
//! process of the command killed at the deadline or when it ends (the process group, and the
//! PID namespace for one that left the group), and a `tool-guard` rule on the command text.
//!
//! Where this kernel cannot build the sandbox, each test prints a SKIP line naming the missing
//! piece (from the launcher's own probe) instead of passing silently; under `CI=true` (CI's
//! machines have user namespaces and Landlock) a missing piece fails the test.

use std::net::TcpListener;
use std::path::Path;

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{
    HANG_LIMIT, TestEnv, audited_tools, output_within, plugin_entry, stderr, stdout, warden_bin,
};

pub(crate) const OPENAI: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// Why the sandbox cannot be built here, from the launcher's probe; `None` when it can.
pub(crate) fn sandbox_missing() -> Option<String> {
    probe_missing(false)
}

/// Why per-host network (`allowed_hosts`) is not available here; `None` when it is.
pub(crate) fn per_host_missing() -> Option<String> {
    probe_missing(true)
}

/// The missing required pieces of the launcher's probe, or (`optional`) the optional ones.
fn probe_missing(optional: bool) -> Option<String> {
    let mut cmd = std::process::Command::new(warden_bin());
    cmd.arg("__sandbox-exec")
        .stdin(std::process::Stdio::piped());
    let out = crate::support::output_with_input(
        cmd,
        br#"{"command":"","cwd":"/","roots":[],"tmp":"/","hide":[],"read_only":[],"network":false,"env":[],"probe":true}"#,
        HANG_LIMIT,
    );
    let pieces: Vec<Value> = match serde_json::from_slice(&out.stdout) {
        Ok(p) => p,
        Err(e) => return Some(format!("no probe report ({e}): {}", stderr(&out))),
    };
    let missing: Vec<String> = pieces
        .iter()
        .filter(|p| p["ok"] != true && (p["optional"] == true) == optional)
        .map(|p| format!("{} ({})", p["name"], p["detail"]))
        .collect();
    (!missing.is_empty()).then(|| missing.join("; "))
}

macro_rules! require_sandbox {
    ($name:expr) => {
        if let Some(missing) = sandbox_missing() {
            eprintln!(
                "SKIP {}: the sandbox cannot be built here: {missing}",
                $name
            );
            return;
        }
    };
}

/// Run one turn (under `--mode full-auto`) whose model calls `calls` (id, command), then
/// answers `done`; the tool messages the model got back, by call id order, and the session id.
pub(crate) fn run_calls(
    env: &TestEnv,
    calls: &[(&str, Value)],
    extra_env: &[(&str, &str)],
) -> (Vec<String>, String) {
    let server = MockServer::start().unwrap();
    let calls: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, args)| (*id, "shell", args.clone()))
        .collect();
    server.push(Reply::tool_calls("", &calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test-secret-value")
        .env("OPENAI_BASE_URL", server.openai_url());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    // `run` has nobody to ask: commands run under `full-auto` (always in the sandbox).
    cmd.args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let messages: Vec<String> = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(messages.len(), calls.len(), "{messages:?}");
    (
        messages,
        value["session"].as_str().unwrap_or_default().to_owned(),
    )
}

fn cmd(command: &str) -> Value {
    json!({ "command": command })
}

#[test]
fn a_normal_command_runs_in_the_workspace_and_reports_its_exit_status() {
    require_sandbox!("a_normal_command_runs_in_the_workspace_and_reports_its_exit_status");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let (messages, session) = run_calls(
        &env,
        &[(
            "c1",
            cmd("echo hi > out.txt; cat out.txt; echo oops >&2; exit 3"),
        )],
        &[],
    );
    let text = &messages[0];
    assert!(text.contains("hi\n") && text.contains("oops"), "{text}");
    assert!(text.ends_with("exit status: 3"), "{text}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("out.txt")).unwrap(),
        "hi\n"
    );
    let tools = audited_tools(&env, &session);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["tool"], "shell");
    assert_eq!(tools[0]["decision"], "allowed");
}

#[test]
fn writes_land_only_in_the_workspace_and_the_private_temporary_directory() {
    require_sandbox!("writes_land_only_in_the_workspace_and_the_private_temporary_directory");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let outside = env.root().join("outside.txt");
    let in_tmp = std::env::temp_dir().join(format!("warden-shell-e2e-{}", std::process::id()));
    let (messages, _) = run_calls(
        &env,
        &[
            ("c1", cmd(&format!("echo x > {}", outside.display()))),
            ("c2", cmd(&format!("echo x > {}", in_tmp.display()))),
            (
                "c3",
                cmd(
                    "echo scratch > \"$TMPDIR/f\" && cat \"$TMPDIR/f\" && echo \"$TMPDIR\" > tmpdir.txt",
                ),
            ),
        ],
        &[],
    );
    assert!(!outside.exists(), "{}", messages[0]);
    assert!(messages[0].contains("Permission denied"), "{}", messages[0]);
    assert!(!in_tmp.exists(), "{}", messages[1]);
    assert!(messages[2].contains("scratch"), "{}", messages[2]);
    // The private directory is gone after the call.
    let tmpdir = std::fs::read_to_string(env.workspace().join("tmpdir.txt")).unwrap();
    assert!(tmpdir.contains("warden-shell-"), "{tmpdir}");
    assert!(!Path::new(tmpdir.trim()).exists(), "{tmpdir}");
}

#[test]
fn keys_denied_files_and_secrets_in_the_environment_stay_unseen() {
    require_sandbox!("keys_denied_files_and_secrets_in_the_environment_stay_unseen");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let home = env.root().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL\n").unwrap();
    env.write(".env", "DB_PASSWORD=hunter2-dotenv\n");
    env.write("config/server.pem", "PEM-MATERIAL\n");
    env.write("visible.txt", "plainly visible\n");
    let (messages, _) = run_calls(
        &env,
        &[
            ("c1", cmd("cat ~/.ssh/id_rsa; ls -a ~/.ssh")),
            ("c2", cmd("cat .env config/server.pem; cat visible.txt")),
            ("c3", cmd("env")),
            (
                "c4",
                cmd("cat /proc/[0-9]*/environ | tr '\\0' '\\n'; echo ppid=$PPID"),
            ),
        ],
        &[
            ("ANTHROPIC_API_KEY", "sk-ant-secret-value"),
            ("MY_SERVICE_TOKEN", "token-secret-value"),
            ("LC_ALL", "C"),
        ],
    );
    assert!(!messages[0].contains("PRIVATE-KEY"), "{}", messages[0]);
    assert!(!messages[0].contains("id_rsa\n"), "{}", messages[0]);
    assert!(
        !messages[1].contains("hunter2") && !messages[1].contains("PEM-MATERIAL"),
        "{}",
        messages[1]
    );
    assert!(messages[1].contains("plainly visible"), "{}", messages[1]);
    let envs = &messages[2];
    for secret in ["secret-value", "API_KEY", "_TOKEN", "WARDEN_"] {
        assert!(!envs.contains(secret), "{secret} in {envs}");
    }
    assert!(
        envs.contains("LC_ALL=C") && envs.contains("PATH="),
        "{envs}"
    );
}

#[test]
fn git_hooks_and_the_project_configuration_cannot_be_written() {
    require_sandbox!("git_hooks_and_the_project_configuration_cannot_be_written");
    let env = TestEnv::new();
    let config = env.project_config(OPENAI);
    let before = std::fs::read_to_string(&config).unwrap();
    std::fs::create_dir_all(env.workspace().join(".git/hooks")).unwrap();
    env.write(".git/HEAD", "ref: refs/heads/main\n");
    env.write(".env", "DB_PASSWORD=hunter2\n");
    let (messages, _) = run_calls(
        &env,
        &[
            (
                "c1",
                cmd("printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit"),
            ),
            ("c2", cmd("echo '[tools.shell]' >> .warden/config.toml")),
            ("c3", cmd("rm -rf .warden; mv .git gone; cat .git/HEAD")),
            (
                "c4",
                cmd(
                    "umount .git; umount -l .env; mount -o remount,rw .git; touch .git/planted; cat .env",
                ),
            ),
        ],
        &[],
    );
    // The covering mounts cannot be undone from inside (Landlock forbids mount changes).
    assert!(
        !env.workspace().join(".git/planted").exists(),
        "{}",
        messages[3]
    );
    assert!(!messages[3].contains("hunter2"), "{}", messages[3]);
    assert!(
        !env.workspace().join(".git/hooks/pre-commit").exists(),
        "{}",
        messages[0]
    );
    assert!(
        messages[0].contains("Read-only file system"),
        "{}",
        messages[0]
    );
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        before,
        "{}",
        messages[1]
    );
    assert!(
        env.workspace().join(".git/HEAD").exists(),
        "{}",
        messages[2]
    );
    // Reading `.git` stays possible (git works).
    assert!(
        messages[2].contains("ref: refs/heads/main"),
        "{}",
        messages[2]
    );
}

/// A command that opens a TCP connection to `port` on the loopback and says whether it did.
fn connect(port: u16) -> String {
    format!(
        "if bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null; then echo CONNECTED; else echo REFUSED; fi"
    )
}

#[test]
fn the_network_is_unreachable_unless_granted() {
    require_sandbox!("the_network_is_unreachable_unless_granted");
    if !Path::new("/bin/bash").exists() && !Path::new("/usr/bin/bash").exists() {
        eprintln!("SKIP the_network_is_unreachable_unless_granted: no bash to open a connection");
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();

    let env = TestEnv::new();
    env.project_config(OPENAI);
    let (messages, _) = run_calls(&env, &[("c1", cmd(&connect(port)))], &[]);
    assert!(messages[0].contains("REFUSED"), "{}", messages[0]);
    assert!(
        listener.accept().is_err(),
        "the sandbox reached the listener"
    );

    // Granted by the user: the same command connects (the check above can fail).
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.user_config("[tools.shell]\nnetwork = true\n");
    let (messages, _) = run_calls(&env, &[("c1", cmd(&connect(port)))], &[]);
    assert!(messages[0].contains("CONNECTED"), "{}", messages[0]);
}

/// Whether process `pid` is still running (a zombie awaiting its reaper is not).
fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .unwrap_or("");
            !matches!(state, "Z" | "X")
        }
        Err(_) => false,
    }
}

/// The live processes of the machine whose command line holds `marker`.
fn running_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(marker) && alive(&pid) {
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

#[test]
fn the_deadline_kills_every_process_of_the_command() {
    require_sandbox!("the_deadline_kills_every_process_of_the_command");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    // Sleeps no other test starts: one in the background, one in a new session (out of the
    // process group), one in the foreground.
    let marker = 900_000 + std::process::id() % 90_000;
    let started = std::time::Instant::now();
    let (messages, _) = run_calls(
        &env,
        &[(
            "c1",
            json!({
                "command": format!(
                    "sleep {marker}1 & setsid sleep {marker}2 & echo started > started.txt; sh -c 'exec sleep {marker}3'"
                ),
                "timeout_s": 2
            }),
        )],
        &[],
    );
    assert!(
        messages[0].contains("killed at the 2 s deadline"),
        "{}",
        messages[0]
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    assert!(
        env.workspace().join("started.txt").exists(),
        "{}",
        messages[0]
    );
    let left = running_with(&format!("sleep {marker}"));
    assert!(left.is_empty(), "processes outlived the deadline: {left:?}");
}

#[test]
fn a_process_that_leaves_the_group_ends_with_the_command() {
    require_sandbox!("a_process_that_leaves_the_group_ends_with_the_command");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let marker = 800_000 + std::process::id() % 90_000;
    let (messages, _) = run_calls(
        &env,
        &[(
            "c1",
            cmd(&format!(
                "setsid sh -c 'sleep {marker}1' > /dev/null 2>&1 & echo pid=$$; exit 0"
            )),
        )],
        &[],
    );
    // The command is PID 1 of its own PID namespace.
    assert!(messages[0].contains("pid=1\n"), "{}", messages[0]);
    assert!(messages[0].ends_with("exit status: 0"), "{}", messages[0]);
    let left = running_with(&format!("sleep {marker}"));
    assert!(left.is_empty(), "a process outlived the call: {left:?}");
}

#[test]
fn a_tool_guard_rule_on_the_command_denies_it() {
    require_sandbox!("a_tool_guard_rule_on_the_command_denies_it");
    let env = TestEnv::new();
    env.write("keep/file.txt", "kept\n");
    env.project_config(&format!(
        "{OPENAI}{}",
        plugin_entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "shell:*rm -rf*")]
        ),
    ));
    let (messages, session) = run_calls(
        &env,
        &[
            ("c1", cmd("rm -rf /tmp/../keep")),
            ("c2", cmd("rm -rf keep")),
            ("c3", cmd("ls keep")),
        ],
        &[],
    );
    assert!(messages[0].contains("denied"), "{}", messages[0]);
    assert!(messages[1].contains("denied"), "{}", messages[1]);
    assert!(env.workspace().join("keep/file.txt").exists());
    assert!(messages[2].contains("file.txt"), "{}", messages[2]);
    let tools = audited_tools(&env, &session);
    let decisions: Vec<&Value> = tools.iter().map(|t| &t["decision"]).collect();
    assert_eq!(
        decisions,
        [&json!("denied"), &json!("denied"), &json!("allowed")]
    );
}

#[test]
fn doctor_reports_each_piece_of_the_sandbox() {
    require_sandbox!("doctor_reports_each_piece_of_the_sandbox");
    let env = TestEnv::new();
    let out = env.run(&["doctor"]);
    let text = stdout(&out);
    for piece in [
        "ok    shell sandbox: user namespace",
        "ok    shell sandbox: mount namespace",
        "ok    shell sandbox: network namespace",
        "ok    shell sandbox: PID namespace",
        "ok    shell sandbox: Landlock (ABI ",
        "info  shell: network cut off, deadline 120 s",
    ] {
        assert!(text.contains(piece), "{piece} missing in:\n{text}");
    }
    // Per-host network: reported as a piece of its own, and the hosts in the summary.
    match per_host_missing() {
        None => assert!(
            text.contains("ok    shell sandbox: per-host network"),
            "{text}"
        ),
        Some(_) => assert!(
            text.contains("info  shell sandbox: per-host network not available here"),
            "{text}"
        ),
    }
    env.user_config("[tools.shell]\nallowed_hosts = [\"api.example.com\"]\n");
    let text = stdout(&env.run(&["doctor"]));
    assert!(
        text.contains("info  shell: network api.example.com only (through the proxy)"),
        "{text}"
    );
    // An operator's `sandbox = "none"` is shown for what it is.
    env.user_config("[tools.shell]\nsandbox = \"none\"\n");
    let text = stdout(&env.run(&["doctor"]));
    assert!(text.contains("commands run unconfined"), "{text}");
    // Forbidden by managed policy: a configuration error.
    env.managed_config("[policy]\nallow_unsandboxed_shell = false\n");
    let text = stdout(&env.run(&["doctor"]));
    assert!(
        text.contains("FAIL") && text.contains("allow_unsandboxed_shell = false"),
        "{text}"
    );
}

/// The acting tools together, as a model uses them: `write_file`, then `edit_file`, then a
/// `shell` command that reads what they wrote, in one turn under `--mode full-auto`; the file
/// holds the edit, the command saw it, and the audit lists the three calls, each allowed.
#[test]
fn write_then_edit_then_shell_in_one_turn_and_the_audit_lists_the_three_calls() {
    require_sandbox!("write_then_edit_then_shell_in_one_turn_and_the_audit_lists_the_three_calls");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            (
                "w1",
                "write_file",
                json!({"path": "notes/plan.txt", "content": "alpha\n"}),
            ),
            (
                "e1",
                "edit_file",
                json!({"path": "notes/plan.txt", "old_string": "alpha", "new_string": "beta"}),
            ),
            ("s1", "shell", cmd("cat notes/plan.txt")),
        ],
    ));
    server.push(Reply::text("done"));
    let mut command = env.command();
    command
        .env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(command, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("notes/plan.txt")).unwrap(),
        "beta\n"
    );
    let results: Vec<String> = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(results[2].starts_with("beta\n"), "{results:?}");
    assert!(results[2].contains("exit status: 0"), "{results:?}");
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let audited: Vec<(String, String)> = audited_tools(&env, value["session"].as_str().unwrap())
        .iter()
        .map(|t| {
            (
                t["tool"].as_str().unwrap_or_default().to_owned(),
                t["decision"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        audited,
        [
            ("write_file".to_owned(), "allowed".to_owned()),
            ("edit_file".to_owned(), "allowed".to_owned()),
            ("shell".to_owned(), "allowed".to_owned()),
        ]
    );
}
