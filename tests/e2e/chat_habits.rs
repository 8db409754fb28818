//! What people used to other coding agents reach for in `warden chat`, through a real
//! terminal: the nearest command for a mistyped one, answers wrapped at words, Esc to
//! interrupt, Shift-Tab to cycle modes under the managed cap, a denial with a reason the model
//! reads, `!COMMAND` whose output joins the conversation, `/clear`, `/status` and `/context`.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{Terminal, chat_against, session_id, skip};
use crate::support::TestEnv;

const OPENAI: &str =
    "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\ntimeout_s = 60\n";

/// The text of every message of the request `n` the server received.
fn request_text(server: &MockServer, n: usize) -> String {
    let requests = server.requests();
    let messages = requests
        .get(n)
        .and_then(|r| r.body["messages"].as_array().cloned())
        .unwrap_or_default();
    messages
        .iter()
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_mistyped_command_suggests_the_nearest() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");
    term.type_text("/hlep");
    term.press("Enter");
    term.wait_for("unknown command /hlep; did you mean /help?");
    term.type_text("/contxet");
    term.press("Enter");
    term.wait_for("unknown command /contxet; did you mean /context?");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// At 40 columns a long paragraph is broken at spaces (each screen line at most 40 columns,
/// every word whole), a list item's wrapped lines sit under its text, and a code line longer
/// than the terminal is not re-wrapped (the terminal's own wrap joins back whole).
#[test]
fn answers_wrap_at_words_and_code_is_not_rewrapped() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let words: Vec<String> = (1..=30).map(|n| format!("word{n:02}x")).collect();
    let code = "let total = first_value + second_value + third_value + fourth;";
    let answer = format!(
        "{}\n\n- item {}\n\n```\n{code}\n```\n\nDone.",
        words.join(" "),
        words[..12].join(" ")
    );
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text(answer));
    let term = Terminal::start_sized(
        &env,
        &env.workspace(),
        &["chat"],
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", server.openai_url()),
            ("NO_COLOR", "1".into()),
        ],
        40,
    );
    term.wait_for("warden ›");
    term.type_text("go");
    term.press("Enter");
    term.wait_for("Done.");
    let screen = term.screen_joined();
    let answer = &screen[screen.find("word01x").unwrap_or(0)..];
    let prose: Vec<&str> = answer
        .lines()
        .take_while(|l| !l.contains("• item"))
        .filter(|l| l.contains("word"))
        .collect();
    assert!(prose.len() >= 6, "{screen}");
    for line in &prose {
        assert!(line.chars().count() <= 40, "{line:?} in\n{screen}");
    }
    let shown: Vec<&str> = prose.iter().flat_map(|l| l.split_whitespace()).collect();
    assert_eq!(shown, words, "{screen}");
    let item = answer
        .lines()
        .skip_while(|l| !l.contains("• item"))
        .nth(1)
        .unwrap_or_default();
    assert!(item.starts_with("  word"), "{screen}");
    assert!(screen.contains(code), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn esc_interrupts_a_running_answer() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
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
    term.press("Escape");
    term.wait_for("partial answer was not committed");
    term.wait_for_after("partial answer was not committed", "warden ›");
    term.type_text("again");
    term.press("Enter");
    term.wait_for("the second answer");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn shift_tab_cycles_the_modes_managed_policy_allows() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.managed_config("[policy]\nmax_mode = \"auto-edit\"\n");
    env.user_config(OPENAI);
    let server = MockServer::start().expect("mock server");
    let term = chat_against(&env, &server);
    term.type_text("half typed");
    term.press("BTab");
    term.wait_for("mode auto-edit for this chat");
    term.press("BTab");
    term.wait_for("mode read-only for this chat");
    term.press("BTab");
    let screen = term.wait_for_after("mode read-only for this chat", "mode ask for this chat");
    assert!(!screen.contains("full-auto for this chat"), "{screen}");
    // What was typed stays on the line.
    term.wait_for_after("mode ask for this chat", "warden › half typed");
    term.press("C-u");
    term.type_text("/mode");
    term.press("Enter");
    term.wait_for("mode ask (managed policy allows up to auto-edit)");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn a_denial_with_a_reason_reaches_the_model() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(&format!("{OPENAI}\n[tools]\nmode = \"ask\"\n"));
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls(
        "",
        &[(
            "w1",
            "write_file",
            json!({"path": "one.txt", "content": "1"}),
        )],
    ));
    server.push(Reply::text("understood"));
    let term = chat_against(&env, &server);
    term.type_text("write one");
    term.press("Enter");
    term.wait_for("[d]eny saying why");
    term.type_text("d");
    term.wait_for("why (the model reads it");
    term.type_text("use two.txt instead");
    term.press("Enter");
    term.wait_for("understood");
    assert!(!env.workspace().join("one.txt").exists());
    let sent = request_text(&server, 1);
    assert!(
        sent.contains("the person declined to run it and says: use two.txt instead"),
        "{sent}"
    );
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn a_bang_command_runs_in_the_sandbox_and_the_model_reads_its_output() {
    if skip() {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP a_bang_command: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "marker-in-the-file\n");
    env.project_config(OPENAI);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text("I see it"));
    let term = chat_against(&env, &server);
    let outside = env.outside().join("outside.txt");
    term.type_text(&format!(
        "!cat notes.txt; touch made.txt; echo written > {}",
        outside.display()
    ));
    term.press("Enter");
    term.wait_for("the model reads it next turn");
    let screen = term.screen();
    assert!(screen.contains("marker-in-the-file"), "{screen}");
    // The workspace is writable, the home outside it is not: the shell tool's confinement.
    assert!(env.workspace().join("made.txt").exists(), "{screen}");
    assert!(!outside.exists(), "{screen}");
    assert!(
        server.requests().is_empty(),
        "no model request for a command"
    );
    term.type_text("what did the file say?");
    term.press("Enter");
    term.wait_for("I see it");
    let sent = request_text(&server, 0);
    assert!(
        sent.contains("The person ran a command in the sandbox"),
        "{sent}"
    );
    assert!(sent.contains("marker-in-the-file"), "{sent}");
    // The audit log records it as a `shell` call the person decided.
    term.type_text("/session");
    term.press("Enter");
    let id = session_id(&term.wait_for("file       "));
    let out = env.run(&["audit", &id, "--json"]);
    let audit = String::from_utf8_lossy(&out.stdout);
    assert!(audit.contains("\"by\":\"person\""), "{audit}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn clear_starts_a_new_session_and_status_and_context_say_what_fills_the_window() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(&format!("{OPENAI}context_window = 100000\n"));
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text("the first answer"));
    let term = chat_against(&env, &server);
    term.type_text("first question");
    term.press("Enter");
    term.wait_for_after("the first answer", "warden ›");
    term.type_text("/context");
    term.press("Enter");
    let screen = term.wait_for("in all");
    let at = screen.rfind("what the next request carries").unwrap_or(0);
    let shown = &screen[at..];
    for kind in [
        "system prompt",
        "tool definitions",
        "your prompts",
        "answers",
    ] {
        let line = shown.lines().find(|l| l.contains(kind)).unwrap_or_default();
        assert!(line.contains("% of 100.0k)"), "{kind}: {screen}");
    }
    term.type_text("/status");
    term.press("Enter");
    let screen = term.wait_for("context    ");
    assert!(screen.contains("model      openai · m"), "{screen}");
    assert!(screen.contains("mode       ask"), "{screen}");
    let first = session_id(&screen);
    term.type_text("/clear");
    term.press("Enter");
    term.wait_for(&format!("(the previous one is {first})"));
    term.type_text("/status");
    term.press("Enter");
    let screen = term.wait_for_after("the previous one is", "items      0");
    let second = screen
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("session    "))
        .unwrap_or_default()
        .trim()
        .to_owned();
    assert_ne!(second, first, "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// `/model NAME` names another model of the provider in the chat's next requests; managed
/// policy's lock on `model.name` refuses it, naming the file.
#[test]
fn model_switches_within_the_chat_unless_policy_locks_it() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text("the first answer"));
    server.push(Reply::text("the second answer"));
    let term = chat_against(&env, &server);
    term.type_text("/model");
    term.press("Enter");
    term.wait_for("model openai · m; /model NAME switches");
    term.type_text("first");
    term.press("Enter");
    term.wait_for_after("the first answer", "warden ›");
    term.type_text("/model other-model");
    term.press("Enter");
    term.wait_for("model openai · other-model for this chat");
    term.type_text("second");
    term.press("Enter");
    term.wait_for("the second answer");
    let requests = server.requests();
    assert_eq!(requests[0].body["model"], "m");
    assert_eq!(requests[1].body["model"], "other-model");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);

    let managed =
        env.managed_config("[policy]\nlocked = [\"model.name\"]\n[model]\nname = \"m\"\n");
    let term = chat_against(&env, &server);
    term.type_text("/model other-model");
    term.press("Enter");
    let screen = term.wait_for("is locked by managed policy");
    assert!(
        screen
            .replace('\n', "")
            .contains(&managed.display().to_string()),
        "{screen}"
    );
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// With the model's window known (here `[model] context_window = 200`) and nothing else set,
/// a prompt that would take the next request past 85% of it compacts what came before first:
/// the summary request is made, the session holds the summary and the prompt after it.
#[test]
fn the_chat_compacts_near_the_window_by_default() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(&format!("{OPENAI}context_window = 200\n"));
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text("the first answer"));
    server.push(Reply::text("what was said so far"));
    server.push(Reply::text("the second answer"));
    let term = chat_against(&env, &server);
    term.type_text("first question");
    term.press("Enter");
    term.wait_for_after("the first answer", "warden ›");
    // 800 bytes: some 200 tokens by the estimate, past 85% of the window.
    let long = "word ".repeat(160);
    term.type_text(long.trim_end());
    term.press("Enter");
    term.wait_for("the second answer");
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "no summary request");
    assert!(
        request_text(&server, 1).contains("Summarize the conversation above"),
        "{}",
        request_text(&server, 1)
    );
    let sent = request_text(&server, 2);
    assert!(sent.contains("what was said so far"), "{sent}");
    assert!(!sent.contains("first question"), "{sent}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// `/init` asks the model for a survey (it may read the workspace with its tools) and writes
/// `AGENTS.md` from the answer; an existing file is kept unless the person says yes.
#[test]
fn init_writes_agents_md_and_asks_before_replacing_one() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("Makefile", "test:\n\tcargo test\n");
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls(
        "",
        &[("l1", "list_files", json!({"path": "."}))],
    ));
    server.push(Reply::text("# Demo\n\nRun the tests with `make test`."));
    server.push(Reply::text("```markdown\n# Demo again\n```"));
    let term = chat_against(&env, &server);
    term.type_text("/init");
    term.press("Enter");
    term.wait_for("wrote AGENTS.md");
    let agents = env.workspace().join("AGENTS.md");
    assert_eq!(
        std::fs::read_to_string(&agents).unwrap_or_default(),
        "# Demo\n\nRun the tests with `make test`.\n"
    );
    assert!(request_text(&server, 0).contains("Survey this repository"));
    assert!(
        request_text(&server, 1).contains("Makefile"),
        "the survey saw the listing"
    );

    term.type_text("/init");
    term.press("Enter");
    term.wait_for("AGENTS.md exists (");
    term.type_text("n");
    term.wait_for("AGENTS.md kept as it was");
    assert_eq!(
        server.requests().len(),
        2,
        "no request when the file is kept"
    );
    assert!(
        std::fs::read_to_string(&agents)
            .unwrap_or_default()
            .starts_with("# Demo\n")
    );
    term.type_text("/init");
    term.press("Enter");
    term.wait_for_after("kept as it was", "AGENTS.md exists (");
    term.type_text("y");
    term.wait_for_after("kept as it was", "wrote AGENTS.md");
    assert_eq!(
        std::fs::read_to_string(&agents).unwrap_or_default(),
        "# Demo again\n"
    );
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
