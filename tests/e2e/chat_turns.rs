//! A chat turn as a person sees it, in a terminal (tmux): what Ctrl-C says while a command
//! runs; a resumed chat's recap tells denied calls from those that ran; a long tool line
//! leaves nothing behind at 80 columns; an approval takes one key, and Ctrl-C there denies and
//! ends the turn; text typed during a turn is kept for the next prompt, Ctrl-C or not, and a
//! prompt sent with Enter during a turn is the next one; keys typed before an approval question
//! never answer it.

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{Terminal, chat_against, skip};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr};

const FULL_AUTO: &str = "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[tools]\nmode = \"full-auto\"\n";

#[test]
fn ctrl_c_while_a_command_runs_names_the_command_and_asks_the_model_nothing_more() {
    if skip() {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP ctrl_c_while_a_command_runs: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    env.project_config(FULL_AUTO);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls(
        "",
        &[("s1", "shell", json!({"command": "sleep 30"}))],
    ));
    server.push(Reply::text("not asked"));
    let term = chat_against(&env, &server);
    term.type_text("wait a while");
    term.press("Enter");
    term.wait_for("running shell");
    term.press("C-c");
    let screen = term.wait_for("cancelled while");
    assert!(
        screen.contains("cancelled while `shell` was running"),
        "{screen}"
    );
    assert!(
        !screen.contains("while the model was answering"),
        "{screen}"
    );
    term.wait_for_after("cancelled while", "warden ›");
    assert_eq!(server.requests().len(), 1, "no request after the cancel");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn a_resumed_chat_shows_denied_calls_as_denied() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "some notes\n");
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"read-only\"\n",
    );
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls(
        "",
        &[
            ("r1", "read_file", json!({"path": "notes.txt"})),
            (
                "w1",
                "write_file",
                json!({"path": "out.txt", "content": "x"}),
            ),
        ],
    ));
    server.push(Reply::text("I could read but not write."));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--new-session", "denied-1", "copy the notes"]);
    let out = output_within(cmd, HANG_LIMIT);
    // 4: the model answered, but its only write was denied.
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));

    let term = Terminal::start(
        &env,
        &["chat", "--resume", "denied-1"],
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", server.openai_url()),
            ("NO_COLOR", "1".into()),
        ],
    );
    let screen = term.wait_for("warden ›");
    let ran = screen
        .lines()
        .find(|l| l.contains("read_file notes.txt"))
        .unwrap_or_else(|| panic!("no read_file line:\n{screen}"));
    assert!(ran.trim_start().starts_with('·'), "{screen}");
    let denied = screen
        .lines()
        .find(|l| l.contains("write_file out.txt"))
        .unwrap_or_else(|| panic!("no write_file line:\n{screen}"));
    assert!(denied.trim_start().starts_with('✗'), "{screen}");
    assert!(denied.contains("denied by mode: read-only"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn a_long_tool_line_is_cut_to_the_terminal_and_leaves_no_raw_arguments_behind() {
    if skip() {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP a_long_tool_line: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    env.project_config(FULL_AUTO);
    let server = MockServer::start().expect("mock server");
    let command = format!("sleep 2; echo done # {}", "padding ".repeat(30));
    server.push(Reply::tool_calls(
        "",
        &[("s1", "shell", json!({"command": command}))],
    ));
    server.push(Reply::text("all done"));
    let term = Terminal::start_sized(
        &env,
        &env.workspace(),
        &["chat"],
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", server.openai_url()),
            ("NO_COLOR", "1".into()),
        ],
        80,
    );
    term.wait_for("warden ›");
    term.type_text("run it");
    term.press("Enter");
    let running = term.wait_for("running shell");
    let line = running
        .lines()
        .find(|l| l.contains("running shell"))
        .unwrap_or_default();
    assert!(line.ends_with('…'), "{running}");
    let screen = term.wait_for_after("run it", "all done");
    assert!(!screen.contains("{\"command\""), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

const ASK: &str =
    "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[tools]\nmode = \"ask\"\n";

#[test]
fn an_approval_takes_one_key_and_ctrl_c_there_denies_and_ends_the_turn() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(ASK);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls(
        "",
        &[(
            "w1",
            "write_file",
            json!({"path": "one.txt", "content": "1"}),
        )],
    ));
    server.push(Reply::text("wrote one"));
    server.push(Reply::tool_calls(
        "",
        &[(
            "w2",
            "write_file",
            json!({"path": "two.txt", "content": "2"}),
        )],
    ));
    server.push(Reply::text("never asked"));
    let term = chat_against(&env, &server);

    term.type_text("write one");
    term.press("Enter");
    let screen = term.wait_for("allow? [y]es / [n]o / [a]lways");
    assert!(screen.contains("one key"), "{screen}");
    term.type_text("y");
    term.wait_for("wrote one");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("one.txt")).unwrap_or_default(),
        "1"
    );

    term.wait_for_after("wrote one", "warden ›");
    term.type_text("write two");
    term.press("Enter");
    term.wait_for_after("write two", "allow? [y]es");
    term.press("C-c");
    let screen = term.wait_for("cancelled at the approval of `write_file`");
    assert!(!screen.contains("was running"), "{screen}");
    term.wait_for_after("cancelled at the approval", "warden ›");
    assert!(!env.workspace().join("two.txt").exists());
    assert_eq!(server.requests().len(), 3, "no request after the cancel");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn text_typed_during_a_turn_is_kept_for_the_next_prompt_across_ctrl_c() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\ntimeout_s = 60\n",
    );
    let server = MockServer::start().expect("mock server");
    server.push(Reply::stall(
        "the first words of an answer that never ends",
        3,
    ));
    server.push(Reply::text("the second answer"));
    let term = chat_against(&env, &server);
    term.type_text("tell me a long story");
    term.press("Enter");
    term.wait_for("the first");
    term.type_text("what next");
    term.press("C-c");
    term.wait_for("partial answer was not committed");
    term.wait_for_after("partial answer was not committed", "warden › what next");
    term.press("Enter");
    term.wait_for("the second answer");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let last = messages.last().cloned().unwrap_or_default();
    assert_eq!(last["content"], "what next", "{messages:?}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// A whole prompt typed and sent with Enter while the model is still answering is the next
/// turn, word for word, once this one ends, even after a stray Enter; and the keys are not
/// echoed into the answer being drawn, they show at the prompt.
#[test]
fn a_prompt_sent_with_enter_during_a_turn_is_the_next_turn() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config("[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n");
    let server = MockServer::start().expect("mock server");
    server.push(Reply::delay(2_000, Reply::text("the first answer")));
    server.push(Reply::text("the second answer"));
    let term = chat_against(&env, &server);
    term.type_text("first question");
    term.press("Enter");
    term.wait_for("waiting for ");
    term.press("Enter");
    term.type_text("what next");
    term.press("Enter");
    let screen = term.wait_for("the second answer");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{screen}");
    let messages = requests[1].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let last = messages.last().cloned().unwrap_or_default();
    assert_eq!(last["content"], "what next", "{messages:?}\n{screen}");
    let first = screen
        .lines()
        .find(|line| line.contains("the first answer"))
        .unwrap_or_default();
    assert!(!first.contains("what next"), "{screen}");
    assert!(screen.contains("warden › what next"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// Keys typed while the model was still thinking never answer an approval question shown
/// after them: "yes" typed ahead does not let the write run; the question waits for a key
/// pressed once it is shown, and the keys typed ahead are in the next prompt, unsent.
#[test]
fn keys_typed_before_an_approval_question_do_not_answer_it() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(ASK);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::delay(
        2_000,
        Reply::tool_calls(
            "",
            &[(
                "w1",
                "write_file",
                json!({"path": "one.txt", "content": "1"}),
            )],
        ),
    ));
    server.push(Reply::text("told no"));
    let term = chat_against(&env, &server);
    term.type_text("write one");
    term.press("Enter");
    term.wait_for("waiting for ");
    term.type_text("yes");
    term.wait_for("allow? [y]es / [n]o / [a]lways");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let screen = term.screen();
    assert!(!screen.contains("told no"), "{screen}");
    assert!(
        !env.workspace().join("one.txt").exists(),
        "a key typed before the question answered it:\n{screen}"
    );
    assert!(
        screen.contains("kept for your next prompt: yes"),
        "{screen}"
    );
    term.type_text("n");
    term.wait_for("told no");
    term.wait_for_after("told no", "warden › yes");
    assert!(!env.workspace().join("one.txt").exists());
    assert_eq!(server.requests().len(), 2);
    term.press("C-u");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
