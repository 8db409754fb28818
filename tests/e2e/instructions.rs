//! Project instructions (`AGENTS.md`): committed once as a `System` item with source
//! `project`, again when changed, under the deny list and the per-file cap.

use serde_json::Value;

use crate::support::{TestEnv, stderr};

fn project_items(env: &TestEnv, session: &str) -> Vec<String> {
    let out = env.run(&["session", "export", session]);
    assert!(out.status.success(), "{}", stderr(&out));
    let items: Value = serde_json::from_slice(&out.stdout).unwrap();
    items
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["source"] == "project")
        .map(|i| {
            assert_eq!(i["role"], "system");
            i["text"].as_str().unwrap().to_owned()
        })
        .collect()
}

fn run(env: &TestEnv, session: &str, prompt: &str) -> String {
    // The first turn names the session; later ones continue it.
    let exists = env.state_home().join("sessions").join(session).is_dir();
    let flag = if exists { "--session" } else { "--new-session" };
    let out = env.run(&["run", flag, session, prompt]);
    assert!(out.status.success(), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn committed_once_and_again_when_changed() {
    let env = TestEnv::new();
    env.write("AGENTS.md", "Answer in French.\n");
    run(&env, "s", "one");
    run(&env, "s", "two");
    assert_eq!(
        project_items(&env, "s"),
        vec!["[Project instructions: AGENTS.md]\nAnswer in French.\n"]
    );
    env.write("AGENTS.md", "Answer in German.\n");
    run(&env, "s", "three");
    run(&env, "s", "four");
    let items = project_items(&env, "s");
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(items[1].ends_with("Answer in German.\n"));

    // The instructions come before the prompt they were committed with.
    let out = env.run(&["session", "export", "s"]);
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &all.as_array().unwrap()[0];
    assert_eq!(first["source"], "project");
}

#[test]
fn name_is_configurable_and_absent_file_is_fine() {
    let env = TestEnv::new();
    env.project_config("[worker]\ninstructions_file = \"docs/RULES.md\"\n");
    env.write("AGENTS.md", "not this one\n");
    run(&env, "a", "hello");
    assert!(project_items(&env, "a").is_empty());
    env.write("docs/RULES.md", "these rules\n");
    run(&env, "a", "hello again");
    assert_eq!(
        project_items(&env, "a"),
        vec!["[Project instructions: docs/RULES.md]\nthese rules\n"]
    );
}

#[test]
fn denied_and_capped() {
    let env = TestEnv::new();
    env.project_config("[worker]\ninstructions_file = \".env\"\n");
    env.write(".env", "SECRET=1\n");
    let err = run(&env, "d", "hello");
    assert!(project_items(&env, "d").is_empty());
    assert!(err.contains(".env not included"), "{err}");

    let env = TestEnv::new();
    env.project_config("[fileref]\nmax_bytes = 300\n");
    env.write("AGENTS.md", "x".repeat(5000));
    run(&env, "c", "hello");
    let items = project_items(&env, "c");
    assert_eq!(items.len(), 1);
    assert!(items[0].len() < 700, "{}", items[0].len());
    assert!(items[0].contains("truncated"), "{}", items[0]);
}
