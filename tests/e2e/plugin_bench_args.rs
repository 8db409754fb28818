//! `warden plugin bench --args TOOL=JSON` on an interceptor: `pre-tool-call` and
//! `post-tool-call` are timed on the call given (one row each per `--args`), and the decision
//! it got is shown, so a guard's deny branch is timed, not only its allow.

use serde_json::Value;
use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

#[test]
fn bench_times_an_interceptor_on_the_calls_given() {
    let env = TestEnv::new();
    let guard = fixtures::tool_guard().to_string_lossy().into_owned();
    let args = [
        "plugin",
        "bench",
        &guard,
        "--config",
        "deny=write_file:*.key",
        "--args",
        r#"write_file={"path":"x.key","content":"k"}"#,
        "--args",
        r#"write_file={"path":"a.txt","content":"a"}"#,
    ];
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let denied = text
        .lines()
        .find(|l| l.contains(r#"call write_file {"content":"k","path":"x.key"}"#))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(denied.contains(": deny"), "{denied}");
    assert!(denied.contains("x.key"), "{denied}");
    let allowed = text
        .lines()
        .find(|l| l.contains(r#"call write_file {"content":"a","path":"a.txt"}"#))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(allowed.ends_with(": allow"), "{allowed}");

    let mut json_args: Vec<&str> = args.to_vec();
    json_args.push("--json");
    let out = env.run(&json_args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let pre: Vec<(&str, &str)> = value["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["point"] == "pre-tool-call")
        .map(|c| {
            (
                c["call"]["arguments"]["path"].as_str().unwrap_or(""),
                c["decision"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(pre, [("x.key", "deny"), ("a.txt", "allow")], "{value}");
}
