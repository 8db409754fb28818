//! The model's plan in `warden chat`: a checklist, redrawn in place when the model updates it
//! call after call, so the screen shows one plan, the latest.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::support::TestEnv;

fn plan(steps: &[(&str, &str)]) -> Value {
    json!({"plan": steps
        .iter()
        .map(|(step, status)| json!({"step": step, "status": status}))
        .collect::<Vec<_>>()})
}

#[test]
fn the_plan_shows_as_a_checklist_updated_in_place() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.user_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\nstream = false\n",
    );
    let server = MockServer::start().unwrap();
    let first = plan(&[("write the parser", "in_progress"), ("test it", "pending")]);
    let second = plan(&[("write the parser", "done"), ("test it", "in_progress")]);
    server.push(Reply::tool_calls("", &[("p1", "update_plan", first)]));
    server.push(Reply::tool_calls("", &[("p2", "update_plan", second)]));
    server.push(Reply::text("halfway there"));
    let term = chat_against(&env, &server);
    term.type_text("build the parser");
    term.press("Enter");
    let screen = term.wait_for_after("halfway there", "warden ›");
    // The latest plan, once: the first one was drawn over.
    assert_eq!(screen.matches("plan: ").count(), 1, "{screen}");
    assert!(screen.contains("plan: 1 of 2 done"), "{screen}");
    assert!(screen.contains("[x] write the parser"), "{screen}");
    assert!(screen.contains("[~] test it"), "{screen}");
    assert!(!screen.contains("[~] write the parser"), "{screen}");
    assert!(!screen.contains("[ ] test it"), "{screen}");
    // No call line stands for a plan update.
    assert!(!screen.contains("✓ update_plan"), "{screen}");
    // Both updates reached the model as ordinary calls.
    assert_eq!(server.requests().len(), 3);
}
