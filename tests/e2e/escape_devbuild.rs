//! Escape cases for `warden plugin dev`: a dev build is the person's, not the model's. The
//! overlay entry records the sha256 of the build `plugin dev` accepted (at start, and per
//! rebuild its watcher sees); a run or a chat loads the file only while it still has that
//! digest. A command the model runs that replaces the build (`cp next.wasm probe.wasm`) does
//! not get its component loaded, with its dev grants, by the next run, nor hot-reloaded into a
//! running chat: both refuse it with a message naming the file and how to accept it; re-running
//! `warden plugin dev` accepts it.
//!
//! Where this kernel cannot build the sandbox a test prints a SKIP line instead of passing
//! silently.

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::mcp_client::sandbox;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"full-auto\"\n\n";

/// Copy the component `from` to `rel` in the workspace; its sha256.
fn place(env: &TestEnv, rel: &str, from: &std::path::Path) -> String {
    let bytes = std::fs::read(from).unwrap();
    let path = env.workspace().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    warden::plugin::sha256_hex(&bytes)
}

/// One `warden run` whose model makes `calls` (none: it answers at once), then answers
/// `done`; the exit code, stderr and the names of the tools offered in the first request.
fn run(env: &TestEnv, calls: &[(&str, &str, Value)]) -> (Option<i32>, String, Vec<String>) {
    let server = MockServer::start().unwrap();
    if !calls.is_empty() {
        server.push(Reply::tool_calls("", calls));
    }
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    let offered = server
        .requests()
        .first()
        .and_then(|r| r.body["tools"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect();
    (out.status.code(), stderr(&out), offered)
}

/// Promise: a build file the model's command replaced after `plugin dev` accepted it is not
/// loaded by the next run: the run is refused with a message naming the file and saying how to
/// accept it, and the replacement's tool is offered to no model. Re-running `plugin dev`
/// accepts it.
#[test]
fn a_dev_build_a_command_replaced_is_refused_by_the_next_run() {
    let test = "a_dev_build_a_command_replaced_is_refused_by_the_next_run";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    place(&env, "build/probe.wasm", &fixtures::grep_tool());
    let next = place(&env, "build/next.wasm", &fixtures::edit_tool());
    let out = env.run(&[
        "plugin",
        "dev",
        "build/probe.wasm",
        "--fs",
        "read",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // The accepted build runs; the model's command replaces it.
    let cp = [(
        "c1",
        "shell",
        json!({ "command": "cp build/next.wasm build/probe.wasm && echo copied" }),
    )];
    let (code, err, offered) = run(&env, &cp);
    assert_eq!(code, Some(0), "{err}");
    assert!(offered.iter().any(|t| t == "search_text"), "{offered:?}");
    let probe = env.workspace().join("build/probe.wasm");
    assert_eq!(
        warden::plugin::sha256_hex(&std::fs::read(&probe).unwrap()),
        next,
        "the command did not replace the build"
    );

    // The next run refuses it, naming the file and how to accept it; no model sees its tool.
    let (code, err, offered) = run(&env, &[]);
    assert_ne!(code, Some(0), "{err}");
    assert!(!offered.iter().any(|t| t == "put_file"), "{offered:?}");
    assert!(err.contains(&probe.display().to_string()), "{err}");
    assert!(
        err.contains("is not the build `warden plugin dev` accepted"),
        "{err}"
    );
    assert!(err.contains(&format!("sha256 {next}")), "{err}");
    assert!(err.contains("warden plugin dev"), "{err}");

    // The person accepts it: the next run offers its tools.
    let out = env.run(&[
        "plugin",
        "dev",
        "build/probe.wasm",
        "--fs",
        "read",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("  sha256: {next}")),
        "{}",
        stdout(&out)
    );
    let (code, err, offered) = run(&env, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(offered.iter().any(|t| t == "put_file"), "{offered:?}");
}

/// The project declares `guard` at `build/guard.wasm`, with config for both samples used as
/// its builds: keyword-context (adds context) and pattern-guard (cancels the prompt).
const GUARD: &str = "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"../build/guard.wasm\"\n[plugins.config]\nword = \"forbidden\"\ncontext = \"Be careful.\"\npattern = \"forbidden\"\nreason = \"blocked by the swapped guard\"\n";

/// Promise: a running chat does not hot-reload a dev build the model's command replaced: the
/// next turn says the file is not the accepted build and how to accept it, and runs with the
/// build loaded at start.
#[test]
fn a_running_chat_refuses_a_dev_build_a_command_replaced() {
    let test = "a_running_chat_refuses_a_dev_build_a_command_replaced";
    if skip() || !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    place(&env, "build/guard.wasm", &fixtures::keyword_context());
    let swapped = place(&env, "build/next.wasm", &fixtures::pattern_guard());
    env.untrusted_project_config(GUARD);
    let out = env.run(&["plugin", "dev", "build/guard.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "c1",
            "shell",
            json!({ "command": "cp build/next.wasm build/guard.wasm && echo copied" }),
        )],
    ));
    server.push(Reply::text("first answer"));
    server.push(Reply::text("second answer"));
    let term = chat_against(&env, &server);
    term.type_text("copy it");
    term.press("Enter");
    term.wait_for("first answer");
    let probe = env.workspace().join("build/guard.wasm");
    assert_eq!(
        warden::plugin::sha256_hex(&std::fs::read(&probe).unwrap()),
        swapped
    );

    // The swapped build would cancel this prompt; the build loaded at start adds its context.
    term.type_text("the forbidden thing");
    term.press("Enter");
    let screen = term.wait_for("second answer");
    assert!(
        !screen.contains(&format!("reloaded (sha256 {swapped})")),
        "{screen}"
    );
    assert!(!screen.contains("blocked by the swapped guard"), "{screen}");
    assert!(screen.contains("warning [plugin:guard]"), "{screen}");
    assert!(screen.contains("not the build"), "{screen}");
    assert!(screen.contains("warden plugin dev"), "{screen}");
    let sent = server.requests()[2].body.to_string();
    assert!(sent.contains("Be careful."), "{sent}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// Promise: `plugin dev` copies no grant from the entry of a project that is not trusted: it
/// names what it left out, and the dev build runs without it; trusted, the project's grants
/// are copied and shown.
#[test]
fn grants_of_an_untrusted_project_entry_are_not_copied_unseen() {
    let env = TestEnv::new();
    env.write("notes.txt", "a needle here\n");
    env.user_config(crate::tool_plugins::MODEL);
    place(&env, "build/probe.wasm", &fixtures::grep_tool());
    env.untrusted_project_config(
        "[[plugins]]\nname = \"probe\"\nkind = \"tool\"\npath = \"../build/probe.wasm\"\nfs = \"read\"\n",
    );
    let out = env.run(&["plugin", "dev", "build/probe.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("  not copied: fs = \"read\" of the project's entry, which is not trusted"),
        "{text}"
    );
    assert!(!text.contains("  grants: fs"), "{text}");
    let search = [(
        "call_1",
        "search_text",
        json!({"pattern": "needle", "literal": true}),
    )];
    let (code, err, tools, _server, _) = crate::tool_plugins::turn_with_calls(&env, &search, &[]);
    assert_eq!(code, Some(0), "{err}");
    let result = crate::tool_plugins::content(&tools, "call_1");
    assert!(result.contains("has no file system access"), "{result}");

    // Trusted: its grants are copied, and shown.
    let out = env.run(&["plugin", "dev", "--stop"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(env.trust().status.code(), Some(0));
    let out = env.run(&["plugin", "dev", "build/probe.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("  grants: fs = \"read\""), "{text}");
    assert!(!text.contains("not copied"), "{text}");
}

/// Promise: with the `plugin dev` watcher running, a build the model's command wrote is still
/// not loaded: the session records that it wrote the dev build, the run says so at once, the
/// watcher accepts no rebuild of it, and the next run refuses it until `plugin dev` accepts
/// it again.
#[test]
fn a_watched_dev_build_a_command_replaced_is_refused_by_the_next_run() {
    let test = "a_watched_dev_build_a_command_replaced_is_refused_by_the_next_run";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    place(&env, "build/probe.wasm", &fixtures::grep_tool());
    let next = place(&env, "build/next.wasm", &fixtures::edit_tool());
    let watcher = crate::plugin_dev::Watcher::start(&env, &["build/probe.wasm", "--fs", "read"]);

    let cp = [(
        "c1",
        "shell",
        json!({ "command": "cp build/next.wasm build/probe.wasm && echo copied" }),
    )];
    let (code, err, _) = run(&env, &cp);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("(the dev build of `warden plugin dev`) was written by `shell`"),
        "{err}"
    );
    // Whether the watcher saw the file before or after the session said who wrote it, the
    // next run refuses it.
    let line = watcher.wait_for_any(&["changed: ", "rebuilt: "]);
    assert!(line.contains(&format!("sha256 {next}")), "{line}");
    assert!(line.contains("not accepted"), "{line}");
    let (code, err, offered) = run(&env, &[]);
    assert_ne!(code, Some(0), "{err}");
    assert!(!offered.iter().any(|t| t == "put_file"), "{offered:?}");
    assert!(
        err.contains("a tool call, a command or an MCP server wrote it during a session"),
        "{err}"
    );
    drop(watcher);

    // The person accepts it.
    let out = env.run(&[
        "plugin",
        "dev",
        "build/probe.wasm",
        "--fs",
        "read",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (code, err, offered) = run(&env, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(offered.iter().any(|t| t == "put_file"), "{offered:?}");
}
