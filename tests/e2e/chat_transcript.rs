//! What `warden chat` shows of a turn's tool calls, at 80 and 160 columns: a failing command
//! as ✗ with its exit status and its last output lines (`/last` shows all of them), each
//! change's diff as it is made, the files the turn changed, and `/diff`.

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::shell::sandbox_missing;
use crate::support::TestEnv;

fn a_turn_with_a_failing_command_and_two_changes(cols: u16) {
    let env = TestEnv::new();
    env.user_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"full-auto\"\n",
    );
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            (
                "w1",
                "write_file",
                json!({"path": "notes.txt", "content": "alpha\nbeta\n"}),
            ),
            (
                "e1",
                "edit_file",
                json!({"path": "notes.txt", "old_string": "beta", "new_string": "gamma"}),
            ),
            (
                "s1",
                "shell",
                json!({"command": "for i in $(seq 1 20); do echo row-$i; done; exit 3"}),
            ),
        ],
    ));
    server.push(Reply::text("finished the work"));
    let term = chat_against(&env, &server);
    term.resize(cols);
    term.type_text("do it");
    term.press("Enter");
    let screen = term.wait_for_after("finished the work", "warden ›");
    // The command failed: ✗, its exit status, its last lines; the earlier ones folded.
    assert!(screen.contains("✗ shell for i in"), "{screen}");
    assert!(screen.contains("— exit 3"), "{screen}");
    assert!(screen.contains("│ row-20"), "{screen}");
    assert!(
        screen.contains("lines above (/last shows them)"),
        "{screen}"
    );
    assert!(
        !screen.contains("row-2\n") && !screen.contains("row-2 "),
        "{screen}"
    );
    // Each change's diff, and the turn's summary.
    assert!(screen.contains("+alpha"), "{screen}");
    assert!(
        screen.contains("-beta") && screen.contains("+gamma"),
        "{screen}"
    );
    assert!(
        screen.contains("changed 1 file (+2 −0): notes.txt"),
        "{screen}"
    );
    term.type_text("/last");
    term.press("Enter");
    // The typed command, not the summary's "/last shows them" hint, marks where its answer starts.
    let screen = term.wait_for_after("warden › /last", "\nwarden ›");
    let after = &screen[screen.rfind("warden › /last").unwrap_or(0)..];
    assert!(after.contains("row-2\n"), "{after}");
    assert!(after.contains("exit status: 3"), "{after}");
    term.type_text("/diff");
    term.press("Enter");
    let screen = term.wait_for_after("warden › /diff", "\nwarden ›");
    let after = &screen[screen.rfind("warden › /diff").unwrap_or(0)..];
    assert!(
        after.contains("created notes.txt (+2 −0) by write_file"),
        "{after}"
    );
    assert!(
        after.contains("edited notes.txt (+1 −1) by edit_file"),
        "{after}"
    );
    assert!(after.contains("+gamma"), "{after}");
    // The session's net change, from its checkpoints.
    term.type_text("/diff session");
    term.press("Enter");
    let screen = term.wait_for_after("/diff session", "warden ›");
    let after = &screen[screen.rfind("/diff session").unwrap_or(0)..];
    assert!(after.contains("created notes.txt (+2 −0)\n"), "{after}");
    assert!(
        after.contains("+gamma") && !after.contains("+beta"),
        "{after}"
    );
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn the_chat_shows_a_failing_command_and_every_change_at_80_columns() {
    if skip() || sandbox_missing().is_some() {
        eprintln!("SKIP: tmux or the sandbox is missing");
        return;
    }
    a_turn_with_a_failing_command_and_two_changes(80);
}

#[test]
fn the_chat_shows_a_failing_command_and_every_change_at_160_columns() {
    if skip() || sandbox_missing().is_some() {
        eprintln!("SKIP: tmux or the sandbox is missing");
        return;
    }
    a_turn_with_a_failing_command_and_two_changes(160);
}
