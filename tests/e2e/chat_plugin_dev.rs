//! `warden plugin dev` with a chat already running: before each turn the chat looks at the
//! file of each dev build it loaded; a rebuild the person accepted (the watcher of
//! `plugin dev` accepts each one it sees; `plugin dev` again accepts the file as it is) is
//! loaded in place (one line names the plugin and its new digest) with no restart and no trust
//! prompt, and a rebuild that does not load leaves the previous build in place and says why.

use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::plugin_dev::Watcher;
use crate::support::{TestEnv, stderr};

/// The project declares `guard` at `build/guard.wasm`, with config for both samples used as
/// its builds: keyword-context (adds context) and pattern-guard (cancels the prompt).
const PROJECT: &str = "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"../build/guard.wasm\"\n[plugins.config]\nword = \"forbidden\"\ncontext = \"Be careful.\"\npattern = \"forbidden\"\nreason = \"blocked by the rebuilt guard\"\n";

/// Put `bytes` at `build/guard.wasm` as a build does (a new file in place of the old); its
/// sha256.
fn build(env: &TestEnv, bytes: &[u8]) -> String {
    build_at(env, "build/guard.wasm", bytes)
}

/// [`build`] at `rel` in the workspace.
fn build_at(env: &TestEnv, rel: &str, bytes: &[u8]) -> String {
    let path = env.workspace().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    warden::plugin::sha256_hex(bytes)
}

#[test]
fn a_running_chat_picks_up_a_dev_rebuild_before_its_next_turn() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n");
    let first = build(&env, &std::fs::read(fixtures::keyword_context()).unwrap());
    env.untrusted_project_config(PROJECT);
    let watcher = Watcher::start(&env, &["build/guard.wasm"]);

    let server = MockServer::start().unwrap();
    server.push(Reply::text("first answer"));
    server.push(Reply::text("third answer"));
    let term = chat_against(&env, &server);

    // The first build adds its context.
    term.type_text("the forbidden thing, once");
    term.press("Enter");
    term.wait_for("first answer");
    let sent = server.requests()[0].body.to_string();
    assert!(sent.contains("Be careful."), "{sent}");

    // Rebuilt while the chat waits at its prompt: the next turn runs the new build.
    let second = build(&env, &std::fs::read(fixtures::pattern_guard()).unwrap());
    assert_ne!(first, second);
    watcher.wait_for("rebuilt: ");
    term.type_text("the forbidden thing, twice");
    term.press("Enter");
    let screen = term.wait_for("blocked by the rebuilt guard");
    let line = format!("plugin guard reloaded (sha256 {second})");
    assert!(screen.contains(&line), "{screen}");
    assert_eq!(
        server.requests().len(),
        1,
        "the cancelled prompt reached the model"
    );

    // A build that does not load: the previous build stays and the chat says why, once.
    let broken = build(&env, b"not a component");
    watcher.wait_for("rebuilt: ");
    term.type_text("the forbidden thing, thrice");
    term.press("Enter");
    let screen = term.wait_for_after("thrice", "blocked by the rebuilt guard");
    let after = &screen[screen.rfind("thrice").unwrap()..];
    assert!(
        after.contains(&format!(
            "warning [plugin:guard]: the rebuild (sha256 {broken}) did not load"
        )),
        "{screen}"
    );
    assert!(after.contains("the previous build stays"), "{screen}");
    assert_eq!(server.requests().len(), 1);

    // Fixed: the next turn loads it, and the model answers.
    let fixed = build(&env, &std::fs::read(fixtures::keyword_context()).unwrap());
    watcher.wait_for("rebuilt: ");
    term.type_text("the forbidden thing, again");
    term.press("Enter");
    let screen = term.wait_for("third answer");
    assert!(
        screen.contains(&format!("plugin guard reloaded (sha256 {fixed})")),
        "{screen}"
    );
    assert_eq!(server.requests().len(), 2);
    // Never a trust prompt along the way.
    assert!(!screen.contains("trust"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// A dev tool plugin: a rebuild offering the same tools takes the old one's place (the
/// `/plugins` row names the new digest); one offering other tools is not loaded, since the
/// model's tool list is fixed for the chat, and the chat says to restart.
#[test]
fn a_running_chat_reloads_a_dev_tool_plugin_with_the_same_tools_only() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n");
    let path = env.workspace().join("build/tool.wasm");
    build_at(
        &env,
        "build/tool.wasm",
        &std::fs::read(fixtures::grep_tool()).unwrap(),
    );
    env.untrusted_project_config(
        "[[plugins]]\nname = \"search\"\nkind = \"tool\"\npath = \"../build/tool.wasm\"\nfs = \"read\"\n",
    );
    let out = env.run(&["plugin", "dev", "build/tool.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let server = MockServer::start().unwrap();
    for answer in ["first answer", "second answer", "third answer"] {
        server.push(Reply::text(answer));
    }
    let term = chat_against(&env, &server);
    term.type_text("hello");
    term.press("Enter");
    term.wait_for("first answer");

    // The same tool, packaged anew (other bytes): loaded before the next turn.
    let packaged = env.root().join("packaged.wasm");
    let out = env.run(&[
        "plugin",
        "package",
        &fixtures::grep_tool().to_string_lossy(),
        "--version",
        "9.9.9",
        "-o",
        &packaged.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let second = build_at(&env, "build/tool.wasm", &std::fs::read(&packaged).unwrap());
    let accept = || {
        let out = env.run(&["plugin", "dev", "build/tool.wasm", "--once"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    };
    accept();
    term.type_text("again");
    term.press("Enter");
    let screen = term.wait_for("second answer");
    assert!(
        screen.contains(&format!("plugin search reloaded (sha256 {second})")),
        "{screen}"
    );
    term.type_text("/plugins");
    term.press("Enter");
    term.wait_for(&format!("search  tool  sha256:{}", &second[..12]));

    // Other tools: refused, the previous build stays.
    let other = build_at(
        &env,
        "build/tool.wasm",
        &std::fs::read(fixtures::edit_tool()).unwrap(),
    );
    accept();
    term.type_text("once more");
    term.press("Enter");
    let screen = term.wait_for("third answer");
    // The line is wider than the terminal: its parts, each within one row.
    let said = format!("warning [plugin:search]: the rebuild (sha256 {other}) did not load");
    assert!(screen.contains(&said), "{screen}");
    assert!(
        screen.contains("search_text before, put_file, replace_in_file now"),
        "{screen}"
    );
    assert!(screen.contains("restart the chat"), "{screen}");
    assert!(!path.with_extension("tmp").exists());
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
