//! Hooks written with the SDKs people use — PyPI `cchooks` and npm
//! `@mizunashi_mana/claude-code-hook-sdk` — run unchanged through the binary; what warden sends
//! each event validates against Codex's published input schemas
//! (`tests/fixtures/codex-hook-schemas`), checked with PyPI `jsonschema`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::hooks_core::{MODEL, against, hook, run};
use crate::shell::sandbox_missing;
use crate::support::{TestEnv, stderr};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(PathBuf::new, Path::to_owned)
}

/// A missing tool: a SKIP line outside CI (`true`: skip the test), a failure under CI.
fn skip(test: &str, tool: &str) -> bool {
    let line = format!("SKIP {test}: {tool} not installed");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true: .ci/run must install it");
    }
    eprintln!("{line}");
    true
}

/// The sandbox can be built here, else a SKIP line.
fn sandboxed(test: &str) -> bool {
    match sandbox_missing() {
        Some(missing) => {
            eprintln!("SKIP {test}: the sandbox cannot be built here: {missing}");
            false
        }
        None => true,
    }
}

/// The Python interpreter that imports `module` (its real path), or `None` after a SKIP line.
fn python_with(test: &str, module: &str, package: &str) -> Option<String> {
    let out = Command::new("python3")
        .args([
            "-c",
            &format!("import sys, {module}; print(sys.executable)"),
        ])
        .output();
    match out {
        Ok(out) if out.status.success() => {
            Some(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        }
        _ => {
            skip(test, &format!("python3 with `{package}`"));
            None
        }
    }
}

/// The `rm -rf` was denied by `by` for `reason`; the `ls` ran as the mode lets it.
fn denied_then_allowed(decided: &[(String, String, String)], by: &str, reason: &str) {
    assert_eq!(
        decided,
        [
            ("denied".to_owned(), by.to_owned(), reason.to_owned()),
            ("allowed".to_owned(), "mode".to_owned(), String::new()),
        ]
    );
}

/// Runs `rm -rf victim` then `ls` under `config`: who decided each call, and why.
fn guarded(env: &TestEnv, config: &str) -> Vec<(String, String, String)> {
    env.write("victim/keep.txt", "keep");
    let (_, tools, _) = run(
        env,
        config,
        &[
            ("c1", "shell", json!({"command": "rm -rf victim"})),
            ("c2", "shell", json!({"command": "ls"})),
        ],
    );
    assert!(env.workspace().join("victim/keep.txt").exists());
    tools
        .iter()
        .map(|t| {
            let text = |k: &str| t[k].as_str().unwrap_or_default().to_owned();
            (text("decision"), text("by"), text("reason"))
        })
        .collect()
}

#[test]
fn a_guard_written_with_cchooks_runs_unchanged() {
    let test = "a_guard_written_with_cchooks_runs_unchanged";
    if !sandboxed(test) {
        return;
    }
    let Some(python) = python_with(test, "cchooks", "cchooks (pip install cchooks)") else {
        return;
    };
    let env = TestEnv::new();
    env.write(
        ".claude/hooks/guard.py",
        r#"from cchooks import PreToolUseContext, create_context

c = create_context()
assert isinstance(c, PreToolUseContext)
if c.tool_name == "Bash" and "rm -rf" in c.tool_input.get("command", ""):
    c.output.deny("cchooks guard: rm -rf is refused")
else:
    c.output.allow()
"#,
    );
    let decided = guarded(
        &env,
        &hook(
            "cchooks-guard",
            "PreToolUse",
            "Bash",
            &format!("{python} \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py"),
            "",
        ),
    );
    denied_then_allowed(
        &decided,
        "hook:cchooks-guard",
        "cchooks guard: rm -rf is refused",
    );
}

#[test]
fn a_guard_written_with_the_npm_hook_sdk_runs_unchanged() {
    let test = "a_guard_written_with_the_npm_hook_sdk_runs_unchanged";
    if !sandboxed(test) {
        return;
    }
    let guard = repo().join("tests/hooks-npm/guard.mjs");
    let sdk = repo().join("tests/hooks-npm/node_modules/@mizunashi_mana/claude-code-hook-sdk");
    let node = Command::new("sh")
        .args(["-c", "command -v node"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if node.is_none() || !sdk.is_dir() {
        skip(
            test,
            "node and @mizunashi_mana/claude-code-hook-sdk (cd tests/hooks-npm && npm install)",
        );
        return;
    }
    let env = TestEnv::new();
    let decided = guarded(
        &env,
        &hook(
            "sdk-guard",
            "PreToolUse",
            "Bash",
            &format!("node {}", guard.display()),
            "",
        ),
    );
    // The SDK answers a block with its JSON on standard output and exit 2: the reason is
    // read from the JSON when standard error says nothing.
    denied_then_allowed(&decided, "hook:sdk-guard", "sdk guard: rm -rf is refused");
}

/// A hook at each event warden shares with Codex copies its input into the workspace; each
/// input validates against the schema of its event.
#[test]
fn every_input_validates_against_codexs_published_schema() {
    let test = "every_input_validates_against_codexs_published_schema";
    if !sandboxed(test) {
        return;
    }
    let Some(python) = python_with(test, "jsonschema", "jsonschema (pip install jsonschema)")
    else {
        return;
    };
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    let record = "mkdir -p .inputs && cat > .inputs/$(date +%s%N).json";
    let mut config = String::new();
    for event in ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"] {
        config.push_str(&hook(
            &format!("record-{}", event.to_lowercase()),
            event,
            "",
            record,
            "fs = \"read-write\"",
        ));
    }
    env.user_config(&format!("{MODEL}{config}"));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            ("c1", "shell", json!({"command": "ls"})),
            ("c2", "read_file", json!({"path": "a.txt"})),
        ],
    ));
    server.push(Reply::text("done"));
    let out = against(&env, &server, &["run", "--json", "go"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let schemas = repo().join("tests/fixtures/codex-hook-schemas");
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(env.workspace().join(".inputs")).unwrap() {
        let path = entry.unwrap().path();
        let input: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let event = input["hook_event_name"].as_str().unwrap().to_owned();
        let tool = input["tool_name"].as_str().unwrap_or_default().to_owned();
        seen.push((event.clone(), tool.clone()));
        // Codex's PreToolUse schema knows its Bash tool only.
        if event == "PreToolUse" && tool != "Bash" {
            continue;
        }
        let kebab: String = event
            .chars()
            .enumerate()
            .flat_map(|(i, c)| {
                let lower = c.to_ascii_lowercase();
                if c.is_ascii_uppercase() && i > 0 {
                    vec!['-', lower]
                } else {
                    vec![lower]
                }
            })
            .collect();
        let schema = schemas.join(format!("{kebab}.command.input.schema.json"));
        if let Err(why) = valid(&python, &path, &schema) {
            panic!("{event}: {why}\n{input}");
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            ("PostToolUse".to_owned(), "Bash".to_owned()),
            ("PostToolUse".to_owned(), "Read".to_owned()),
            ("PreToolUse".to_owned(), "Bash".to_owned()),
            ("PreToolUse".to_owned(), "Read".to_owned()),
            ("Stop".to_owned(), String::new()),
            ("UserPromptSubmit".to_owned(), String::new()),
        ]
    );
    // The example answers are valid under the output schemas (warden reads each of them:
    // `domain::hook_reply::every_answer_codexs_schemas_allow_is_understood`).
    for entry in std::fs::read_dir(schemas.join("examples")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let schema = schemas.join(format!("{stem}.command.output.schema.json"));
        if let Err(why) = valid(&python, &path, &schema) {
            panic!("{stem}: {why}");
        }
    }
}

/// Whether the JSON file `instance` is valid under `schema`, checked by PyPI `jsonschema`;
/// its complaints when not.
fn valid(python: &str, instance: &Path, schema: &Path) -> Result<(), String> {
    let check = Command::new(python)
        .args(["-m", "jsonschema", "-i"])
        .arg(instance)
        .arg(schema)
        .output()
        .map_err(|e| e.to_string())?;
    if check.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        ))
    }
}
