//! `warden plugin call FILE POINT JSON`: one call of one point of a component, its answer
//! printed as JSON (as `extism call` does), with `--config` for its `init`.

use serde_json::{Value, json};
use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

fn call(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["plugin", "call"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    serde_json::from_str(stdout(&out).trim()).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

#[test]
fn call_prints_one_answer_of_an_interceptor_and_a_tool() {
    let env = TestEnv::new();
    let guard = fixtures::tool_guard().to_string_lossy().into_owned();
    let answer = call(
        &env,
        &[
            &guard,
            "pre-tool-call",
            r#"{"tool":"write_file","arguments":{"path":"x.key","content":"k"}}"#,
            "--config",
            "deny=write_file:*.key",
        ],
    );
    assert_eq!(answer["decision"], "deny", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .is_some_and(|r| r.contains("x.key")),
        "{answer}"
    );
    let answer = call(
        &env,
        &[
            &guard,
            "pre-tool-call",
            r#"{"tool":"write_file","arguments":{"path":"a.txt","content":"a"}}"#,
            "--config",
            "deny=write_file:*.key",
        ],
    );
    assert_eq!(answer, json!({"decision": "allow"}));

    let kw = fixtures::keyword_context().to_string_lossy().into_owned();
    let answer = call(
        &env,
        &[
            &kw,
            "on-prompt-submit",
            r#"{"text":"how do I deploy this?"}"#,
            "--config",
            "word=deploy",
            "--config",
            "context=Deploys go through CI.",
        ],
    );
    assert_eq!(answer["decision"], "continue-with", "{answer}");
    assert!(
        answer["items"]
            .to_string()
            .contains("Deploys go through CI."),
        "{answer}"
    );

    // A tool plugin: POINT is the tool's name, JSON its arguments.
    env.write("notes.txt", "alpha\nbeta\n");
    let grep = fixtures::grep_tool().to_string_lossy().into_owned();
    // Granted nothing: its answer is the error it gives, printed as an answer.
    let answer = call(&env, &[&grep, "search_text", r#"{"pattern":"alpha"}"#]);
    assert_eq!(answer["is_error"], true, "{answer}");
    assert!(
        answer["output"]
            .as_str()
            .is_some_and(|o| o.contains("no file system access")),
        "{answer}"
    );
    let out = env.run(&["plugin", "call", &grep, "nonexistent-tool", "{}"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("search_text"), "{}", stderr(&out));

    // What cannot be a call: a bad point, bad JSON.
    let out = env.run(&["plugin", "call", &guard, "on-nothing", "{}"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("pre-tool-call"), "{}", stderr(&out));
    let out = env.run(&["plugin", "call", &guard, "pre-tool-call", "{not json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
}
