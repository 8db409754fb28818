//! Child sessions through the real binary: `run --parent` links a child to its parent, and
//! every child's turn end reaches the parent's history once, before its next request, in the
//! order the children ended.

use serde_json::Value;
use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

fn json_run(env: &TestEnv, args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["run", "--json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    let value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("{e}: {} / {}", stdout(&out), stderr(&out)));
    (out.status.code(), value)
}

fn export(env: &TestEnv, session: &str) -> Vec<Value> {
    let out = env.run(&["session", "export", session]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn child_reports_reach_the_parent_once_in_the_order_the_children_ended() {
    let env = TestEnv::new();
    env.project_config(&format!(
        "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\npattern = \"forbidden\"\nreason = \"that topic is blocked here\"\n",
        fixtures::pattern_guard().display()
    ));
    let (code, _) = json_run(&env, &["--new-session", "P", "plan the work"]);
    assert_eq!(code, Some(0));

    let (code, first) = json_run(&env, &["--parent", "P", "do the first part"]);
    assert_eq!(code, Some(0));
    assert_eq!(first["outcome"], "answered");
    let first_id = first["session"].as_str().unwrap().to_owned();
    let (code, second) = json_run(&env, &["--parent", "P", "do the forbidden part"]);
    assert_eq!(code, Some(3));
    assert_eq!(second["outcome"], "cancelled");
    let second_id = second["session"].as_str().unwrap().to_owned();

    // A missing parent is refused, and no session is created for it.
    let out = env.run(&["run", "--parent", "nope", "x"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    let (code, _) = json_run(&env, &["--session", "P", "what came back?"]);
    assert_eq!(code, Some(0));
    let history = export(&env, "P");
    let shape: Vec<(&str, &str)> = history
        .iter()
        .map(|i| (i["source"].as_str().unwrap(), i["role"].as_str().unwrap()))
        .collect();
    assert_eq!(
        shape[2..],
        [
            ("user", "user"),
            ("notify", "system"),
            ("notify", "system"),
            ("provider", "assistant"),
        ]
    );
    let report = |i: usize| history[i]["text"].as_str().unwrap().to_owned();
    let (a, b) = (report(3), report(4));
    assert!(
        a.contains(&format!(
            "Ambient report from child session {first_id}, not a request"
        )) && a.contains("outcome=\"answered\"")
            && a.contains("[echo provider]"),
        "{a}"
    );
    assert!(
        b.contains(&second_id)
            && b.contains("outcome=\"cancelled\"")
            && b.contains("that topic is blocked here"),
        "{b}"
    );

    // A second parent turn repeats neither.
    let (code, _) = json_run(&env, &["--session", "P", "anything else?"]);
    assert_eq!(code, Some(0));
    let again = export(&env, "P");
    assert_eq!(again.len(), history.len() + 2);
    assert_eq!(again.iter().filter(|i| i["source"] == "notify").count(), 2);

    // Show names the links both ways.
    let out = env.run(&["session", "show", "P"]);
    assert!(
        stdout(&out).contains(&format!("children: {first_id}, {second_id}")),
        "{}",
        stdout(&out)
    );
    let out = env.run(&["session", "show", &first_id]);
    assert!(stdout(&out).starts_with("parent: P\n"), "{}", stdout(&out));
}
