//! Waits and failures in `warden chat` through a real terminal: the countdown while the model
//! does not answer, one message for Ctrl-C, a denied call's line, `/preview` headers.

use std::net::TcpListener;

use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{Terminal, chat_against, skip};
use crate::support::TestEnv;

const MARKER: &str = "warden ›";

#[test]
fn the_spinner_counts_down_the_wait_budget_and_the_error_names_it() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config("[model]\nprovider = \"openai\"\nname = \"m\"\nmax_wait_s = 4\n");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let term = Terminal::start(
        &env,
        &["chat"],
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1")),
            ("NO_COLOR", "1".into()),
        ],
    );
    term.wait_for(MARKER);
    term.type_text("hello");
    term.press("Enter");
    let screen = term.wait_for("waiting for openai — ");
    assert!(screen.contains("s left, attempt 1/5"), "{screen}");
    term.wait_for("max_wait_s");
    term.wait_for_after("max_wait_s", MARKER);
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn ctrl_c_says_cancelled_once() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\ntimeout_s = 60\n",
    );
    let server = MockServer::start().unwrap();
    server.push(Reply::stall("the first words of an endless answer", 3));
    let term = chat_against(&env, &server);
    term.type_text("tell me a story");
    term.press("Enter");
    term.wait_for("the first");
    term.press("C-c");
    let screen = term.wait_for_after("partial answer was not committed", MARKER);
    assert_eq!(screen.matches("cancelled").count(), 1, "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn a_call_declined_with_n_shows_its_denied_line() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "a needle here\n");
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n\
         [[plugins]]\nname = \"search\"\nkind = \"tool\"\npath = {:?}\nfs = \"read\"\napprove = \"ask\"\n",
        warden_tests::fixtures::grep_tool().display().to_string()
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "g1",
            "search_text",
            serde_json::json!({"pattern": "needle", "literal": true}),
        )],
    ));
    server.push(Reply::text("first done"));
    let term = chat_against(&env, &server);
    term.type_text("search once");
    term.press("Enter");
    term.wait_for("allow? [y]es / [n]o / [a]lways");
    term.type_text("n");
    let screen = term.wait_for("first done");
    assert!(
        screen.contains("✗ search_text needle — denied by approval"),
        "{screen}"
    );
    term.wait_for_after("first done", MARKER);
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn preview_shows_headers_and_sizes_unless_full() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let body: String = (1..=280).map(|n| format!("readme line {n}\n")).collect();
    env.write("README.md", &body);
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for(MARKER);
    term.type_text("/preview summarise @README.md");
    term.press("Enter");
    let screen = term.wait_for("281 lines");
    assert!(!screen.contains("readme line 200"), "{screen}");
    term.wait_for_after("281 lines", MARKER);
    term.type_text("/preview --full summarise @README.md");
    term.press("Enter");
    term.wait_for("readme line 280");
    term.wait_for_after("readme line 280", MARKER);
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
