//! `post-tool-call` sees every call that was settled, denied ones included: the WIT contract
//! ("A tool call finished (or was denied)"). Through the real binary: a guard denies one call,
//! the person's approval (absent under `warden run`) another, a third runs; a recording
//! interceptor after the guard adds one item per `post-tool-call`, which follows the results
//! in call order; the audit log has one `post-tool-call` point per call, and
//! `warden plugin replay` of the recorder feeds it the same three points, each with the result
//! it saw, and finds no difference there.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{TestEnv, plugin_entry as entry, run_go_json, stderr, stdout};

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

#[test]
fn post_tool_call_sees_denied_calls_with_their_denial() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.write("secret.txt", "the secret\n");
    env.project_config(&format!(
        "{MODEL}{}{}{}",
        entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "read_file:secret*")]
        ),
        entry(
            "interceptor",
            "recorder",
            &fixtures::hostile(),
            "",
            &[("mode", "post-seen")]
        ),
        entry(
            "tool",
            "grep",
            &fixtures::grep_tool(),
            "fs = \"read\"\napprove = \"ask\"",
            &[]
        ),
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            ("c1", "read_file", json!({"path": "a.txt"})),
            ("c2", "read_file", json!({"path": "secret.txt"})),
            (
                "c3",
                "search_text",
                json!({"pattern": "alpha", "literal": true}),
            ),
        ],
    ));
    server.push(Reply::text("done"));
    let (_, session) = run_go_json(&env, &server.openai_url());

    let export = env.run(&["session", "export", &session]);
    let history: Value = serde_json::from_str(&stdout(&export)).unwrap();
    let after_calls: Vec<(String, String)> = history
        .as_array()
        .unwrap()
        .iter()
        .skip_while(|i| i["role"] != "tool")
        .take(6)
        .map(|i| {
            (
                i["role"].as_str().unwrap_or("").to_owned(),
                i["text"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let roles: Vec<&str> = after_calls.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        roles,
        ["tool", "tool", "tool", "system", "system", "system"],
        "{after_calls:?}"
    );
    assert!(
        after_calls[3]
            .1
            .starts_with("post-tool-call saw c1 read_file (result for c1, error=false): "),
        "{after_calls:?}"
    );
    assert!(after_calls[3].1.contains("alpha"), "{after_calls:?}");
    assert!(
        after_calls[4].1.starts_with(
            "post-tool-call saw c2 read_file (result for c2, error=true): tool call denied by plugin:guard: "
        ),
        "{after_calls:?}"
    );
    assert!(!after_calls[4].1.contains("the secret"), "{after_calls:?}");
    assert!(
        after_calls[5].1.starts_with(
            "post-tool-call saw c3 search_text (result for c3, error=true): tool call denied by approval: "
        ),
        "{after_calls:?}"
    );

    // The model's second request carried the three items after the three results.
    let requests = server.requests();
    let last = requests.last().unwrap().body.to_string();
    for id in ["c1", "c2", "c3"] {
        assert!(
            last.contains(&format!("post-tool-call saw {id} ")),
            "{last}"
        );
    }

    // One audited `post-tool-call` point per call, each naming the item it added.
    let audit = std::fs::read_to_string(
        env.state_home()
            .join("sessions")
            .join(&session)
            .join("audit.jsonl"),
    )
    .unwrap();
    let posts: Vec<(Value, usize)> = audit
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| {
            r["event"]["type"] == "point" && r["event"]["input"]["point"] == "post-tool-call"
        })
        .map(|r| {
            (
                r["event"]["input"]["call_id"].clone(),
                r["event"]["added"].as_array().map_or(0, Vec::len),
            )
        })
        .collect();
    assert_eq!(
        posts,
        [(json!("c1"), 1), (json!("c2"), 1), (json!("c3"), 1)]
    );

    // Replaying the recorder: the same three points, each fed the result it saw then.
    let recorder = fixtures::hostile().display().to_string();
    let out = env.run(&[
        "plugin",
        "replay",
        &session,
        &recorder,
        "--config",
        "mode=post-seen",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let replayed: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let points = replayed["points"].as_array().unwrap();
    // (Its `pre-tool-call` rows differ where the chain then denied: the recorder alone allows.)
    let posts: Vec<(&Value, &Value, &Value, &Value)> = points
        .iter()
        .filter(|p| p["point"] == "post-tool-call")
        .map(|p| {
            (
                &p["input"]["call_id"],
                &p["input"]["is_error"],
                &p["differs"],
                &p["unreached"],
            )
        })
        .collect();
    let (yes, no) = (json!(true), json!(false));
    assert_eq!(
        posts,
        [
            (&json!("c1"), &no, &no, &no),
            (&json!("c2"), &yes, &no, &no),
            (&json!("c3"), &yes, &no, &no)
        ],
        "{replayed:#}"
    );
}
