//! The workspace root: found the same way by every command from any subdirectory, `@path`
//! tried relative to the current directory first, and a session bound to the workspace it
//! records.

use serde_json::Value;
use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

fn json(out: &std::process::Output) -> Value {
    serde_json::from_str(stdout(out).trim())
        .unwrap_or_else(|err| panic!("{err}: {}\nstderr: {}", stdout(out), stderr(out)))
}

fn texts(value: &Value) -> Vec<String> {
    value["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_subdirectory_finds_the_project_root_and_its_config() {
    let env = TestEnv::new();
    env.write("README.md", "top readme\n");
    env.write("src/main.rs", "fn main() {}\n");
    env.project_config("[fileref]\nplacement = \"reminder\"\n");
    let src = env.workspace().join("src");

    // `@../README.md` is inside the root; `@main.rs` is the current directory's file;
    // `@README.md` is not in `src/`, so the root's is taken.
    let out = env.run_in(
        &src,
        &["preview", "--json", "see @../README.md @main.rs @README.md"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value = json(&out);
    let statuses: Vec<&str> = value["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["resolved", "resolved", "resolved"], "{value}");
    let text = &texts(&value)[1];
    // The project config was loaded: reminder placement.
    assert!(text.starts_with("<system-reminder>"), "{text}");
    assert!(
        text.contains("top readme") && text.contains("fn main"),
        "{text}"
    );
    assert!(text.contains("src/main.rs"), "{text}");
}

#[test]
fn a_project_guard_applies_from_a_subdirectory() {
    let env = TestEnv::new();
    env.write("src/lib.rs", "\n");
    env.project_config(&format!(
        "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\npattern = \"forbidden\"\nreason = \"blocked\"\n",
        fixtures::pattern_guard().display()
    ));
    let out = env.run_in(
        &env.workspace().join("src"),
        &["run", "--json", "the forbidden thing"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
}

#[test]
fn run_reports_the_root_it_uses() {
    let env = TestEnv::new();
    // No `.warden/`: the nearest `.git` marks the root.
    std::fs::create_dir_all(env.workspace().join(".git")).unwrap();
    let deep = env.workspace().join("a/b");
    std::fs::create_dir_all(&deep).unwrap();
    let out = env.run_in(&deep, &["run", "--json", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        json(&out)["workspace"],
        env.workspace().to_str().unwrap(),
        "{}",
        stdout(&out)
    );

    let out = env.run_in(&deep, &["run", "-v", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("workspace {}", env.workspace().display())),
        "{}",
        stderr(&out)
    );

    // `-C` sets the root explicitly.
    let out = env.run_in(&deep, &["run", "--json", "-C", ".", "hi"]);
    assert_eq!(json(&out)["workspace"], deep.to_str().unwrap());
}

#[test]
fn a_session_runs_in_its_recorded_workspace() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha in the workspace\n");
    let out = env.run(&["run", "--json", "one"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let id = json(&out)["session"].as_str().unwrap().to_owned();

    // From elsewhere, the session's own workspace serves `@a.txt`.
    let elsewhere = env.outside();
    std::fs::write(elsewhere.join("a.txt"), "the wrong file\n").unwrap();
    let out = env.run_in(&elsewhere, &["run", "--json", "--session", &id, "@a.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value = json(&out);
    assert_eq!(value["workspace"], env.workspace().to_str().unwrap());
    let answer = value["answer"].as_str().unwrap();
    assert!(answer.contains("a.txt"), "{answer}");
    let export = env.run(&["session", "export", &id]);
    let history = stdout(&export);
    assert!(history.contains("alpha in the workspace"), "{history}");
    assert!(!history.contains("the wrong file"), "{history}");

    // `-C` naming another workspace is a usage error naming both.
    let out = env.run_in(&elsewhere, &["run", "-C", ".", "--session", &id, "@a.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(elsewhere.to_str().unwrap())
            && err.contains(env.workspace().to_str().unwrap()),
        "{err}"
    );
}
