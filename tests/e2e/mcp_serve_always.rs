//! "Always" through `warden mcp serve`: a `shell` call that asks becomes an elicitation that
//! offers yes / no / always, names the narrowest rule before it is saved, and "always" writes
//! that rule to the user layer limited to the workspace, as the chat does; the next call it
//! covers runs without asking, in this session and the next.

use serde_json::json;

use crate::mcp_serve::{call, over_stdio, skip_without_python_mcp};
use crate::support::TestEnv;

#[test]
fn always_through_elicitation_saves_the_narrowest_rule_and_the_next_call_does_not_ask() {
    if skip_without_python_mcp("mcp_serve_always::always") {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP mcp_serve_always::always: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    let user = env.user_config("[tools]\nbuiltin_rules = false\n");
    let ws = env.workspace();
    let touch = |name: &str| call("shell", json!({ "command": format!("touch {name}") }));

    let steps = json!([touch("one.txt"), touch("two.txt")]);
    let (outcomes, err) = over_stdio(
        &env,
        &["--elicit", "accept", "--answer", "always"],
        &[],
        &steps,
    );
    // One question, for the first call only.
    let asked: Vec<_> = outcomes
        .iter()
        .filter(|o| o.get("elicited").is_some())
        .collect();
    assert_eq!(asked.len(), 1, "{outcomes:?}\n{err}");
    let message = asked[0]["elicited"].as_str().unwrap_or_default();
    assert!(message.contains("always for `touch …`"), "{message}");
    let choices = &asked[0]["schema"]["properties"]["answer"]["enum"];
    assert_eq!(choices, &json!(["yes", "no", "always"]), "{outcomes:?}");
    assert_eq!(outcomes[1]["is_error"], false, "{outcomes:?}");
    assert_eq!(outcomes[2]["is_error"], false, "{outcomes:?}");
    assert!(ws.join("one.txt").exists() && ws.join("two.txt").exists());

    let saved = std::fs::read_to_string(&user).unwrap();
    assert!(saved.contains("id = \"always:touch\""), "{saved}");
    assert!(saved.contains("command = [\"touch\"]"), "{saved}");
    let root = std::fs::canonicalize(&ws).unwrap();
    assert!(
        saved.contains(&format!("workspace = \"{}\"", root.display())),
        "{saved}"
    );
    assert!(!ws.join(".warden/config.toml").exists());

    // The next session: a client that cannot be asked is not asked; the rule lets it run.
    let (outcomes, err) = over_stdio(&env, &[], &[], &json!([touch("three.txt")]));
    assert_eq!(outcomes[0]["is_error"], false, "{outcomes:?}\n{err}");
    assert!(ws.join("three.txt").exists());
    // A command the rule does not cover still asks (and is refused without elicitation).
    let (outcomes, _) = over_stdio(
        &env,
        &[],
        &[],
        &json!([call("shell", json!({"command": "mkdir d"}))]),
    );
    assert_eq!(outcomes[0]["is_error"], true, "{outcomes:?}");
    assert!(!ws.join("d").exists());
}

#[test]
fn yes_and_no_through_elicitation_save_nothing() {
    if skip_without_python_mcp("mcp_serve_always::yes_no") {
        return;
    }
    if crate::shell::sandbox_missing().is_some() {
        return;
    }
    let env = TestEnv::new();
    let user = env.user_config("[tools]\nbuiltin_rules = false\n");
    let ws = env.workspace();
    let steps = json!([call("shell", json!({"command": "touch a.txt"}))]);
    let (outcomes, _) = over_stdio(&env, &["--elicit", "accept", "--answer", "no"], &[], &steps);
    assert_eq!(outcomes[1]["is_error"], true, "{outcomes:?}");
    assert!(!ws.join("a.txt").exists());
    let (outcomes, _) = over_stdio(
        &env,
        &["--elicit", "accept", "--answer", "yes"],
        &[],
        &steps,
    );
    assert_eq!(outcomes[1]["is_error"], false, "{outcomes:?}");
    assert!(ws.join("a.txt").exists());
    let saved = std::fs::read_to_string(&user).unwrap();
    assert!(!saved.contains("[[rules]]"), "{saved}");
}
