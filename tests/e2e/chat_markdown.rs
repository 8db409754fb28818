//! Answers rendered in the chat as they stream, at 80 and 160 columns: headings, emphasis,
//! lists, fenced code and tables drawn without their Markdown markup, a fenced block's
//! keywords coloured unless `NO_COLOR` is set; `warden run` prints the raw text.

use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{Terminal, skip};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const ANSWER: &str = "# Plan\n\nFirst **read** the `config`, then:\n\n- check the *inputs*\n- run the tests\n\n```rust\nfn main() {}\n```\n\n| step | time |\n|------|------|\n| build | 2 min |\n\nDone.";

const OPENAI: &str = "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n";

/// The chat at `columns`, with colour or with `NO_COLOR` set.
fn chat_at(columns: u16, colour: bool) {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text(ANSWER));
    let mut vars = vec![
        ("OPENAI_API_KEY", "sk-test".to_owned()),
        ("OPENAI_BASE_URL", server.openai_url()),
    ];
    if !colour {
        vars.push(("NO_COLOR", "1".into()));
    }
    let term = Terminal::start_sized(&env, &env.workspace(), &["chat"], &vars, columns);
    term.wait_for("warden ›");
    term.type_text("make a plan");
    term.press("Enter");
    let screen = term.wait_for_after("make a plan", "session ");
    let answer = &screen[screen.find("make a plan").unwrap_or(0)..];
    for shown in [
        "\nPlan\n",
        "First read the config, then:",
        "• check the inputs\n• run the tests",
        "  rust\n  fn main() {}",
        "step  │ time\n──────┼──────\nbuild │ 2 min",
        "Done.",
    ] {
        assert!(
            answer.contains(shown),
            "{shown:?} at {columns} columns:\n{answer}"
        );
    }
    for markup in ["# Plan", "**", "```", "|---", "- check"] {
        assert!(
            !answer.contains(markup),
            "{markup:?} at {columns} columns:\n{answer}"
        );
    }
    // The keyword `fn` in the fenced Rust block is coloured (magenta), the rest of its line
    // is not; without colour the line has no escape at all.
    let coloured = term.screen_with_colours();
    let line = coloured
        .lines()
        .find(|l| l.contains("main() {}"))
        .unwrap_or_default();
    if colour {
        assert!(
            line.contains("\x1b[35mfn\x1b["),
            "no colour around fn at {columns} columns: {line:?}"
        );
        assert_eq!(line.matches("\x1b[35m").count(), 1, "{line:?}");
    } else {
        assert!(
            line.contains("fn main() {}") && !line.contains('\x1b'),
            "at {columns} columns: {line:?}"
        );
    }
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn an_answer_is_rendered_at_80_columns() {
    if skip() {
        return;
    }
    chat_at(80, true);
}

#[test]
fn an_answer_is_rendered_at_160_columns() {
    if skip() {
        return;
    }
    chat_at(160, false);
}

#[test]
fn run_prints_the_raw_text() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text(ANSWER));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "make a plan"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), ANSWER);
}
