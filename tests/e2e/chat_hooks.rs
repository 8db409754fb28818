//! Command hooks run in the chat as in `warden run`: a user-layer `PreToolUse` guard denies a
//! command in a `warden chat` session, and the transcript says which hook denied it.

use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::hooks_core::GUARD;
use crate::support::TestEnv;

#[test]
fn a_pre_tool_use_hook_denies_a_command_in_the_chat() {
    if skip() {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!(
            "SKIP a_pre_tool_use_hook_denies_a_command_in_the_chat: the sandbox cannot be built here: {missing}"
        );
        return;
    }
    let env = TestEnv::new();
    env.write("victim/keep.txt", "keep");
    env.write(".claude/hooks/guard.py", GUARD);
    env.user_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[tools]\nmode = \"full-auto\"\n\n[[hooks]]\nname = \"guard\"\nevent = \"PreToolUse\"\nmatcher = \"Bash\"\ntype = \"command\"\ncommand = \"python3 .claude/hooks/guard.py\"\n",
    );
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "c1",
            "shell",
            serde_json::json!({"command": "rm -rf victim"}),
        )],
    ));
    server.push(Reply::text("chat-hook-turn-done"));
    let term = chat_against(&env, &server);
    term.type_text("clean up");
    term.press("Enter");
    let screen = term.wait_for("chat-hook-turn-done");
    assert!(screen.contains("denied by hook:guard"), "{screen}");
    assert!(env.workspace().join("victim/keep.txt").exists());
}
