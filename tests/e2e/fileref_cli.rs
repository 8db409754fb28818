//! `@path` references through the real `warden` binary: the exact `preview --json` shape, the
//! placements chosen by config, and a resolver swapped by config alone (the redacting example,
//! built here from `examples/redacting-resolver`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{TestEnv, stderr, stdout};

fn preview(env: &TestEnv, prompt: &str) -> Value {
    let out = env.run(&["preview", "--json", prompt]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn preview_json_has_the_documented_shape() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.write("src/lib.rs", "one\ntwo\nthree\n");
    let value = preview(&env, "read @a.txt, @src/lib.rs#L2-3 and @missing.md");
    assert_eq!(
        value,
        json!({
            "items": [
                {"role": "user", "text": "read @a.txt, @src/lib.rs#L2-3 and [unresolved file ref: missing.md]", "source": "user"},
                {"role": "system", "text": "[File: a.txt]\nalpha\n", "source": "fileref"},
                {"role": "system", "text": "[File: src/lib.rs#L2-3]\ntwo\nthree\n", "source": "fileref"},
            ],
            "alerts": [
                {"level": "warn", "message": "@missing.md not included — not found: missing.md: no such file or directory", "source": "fileref"},
            ],
            "refs": [
                {"raw": "@a.txt", "path": "a.txt", "range": null, "status": "resolved", "bytes": 6, "truncated": false},
                {"raw": "@src/lib.rs#L2-3", "path": "src/lib.rs", "range": {"start": 2, "end": 3}, "status": "resolved", "bytes": 10, "truncated": false},
                {"raw": "@missing.md", "path": "missing.md", "range": null, "status": "not-found", "bytes": 0, "truncated": false},
            ],
        })
    );
}

#[test]
fn placement_is_chosen_by_config() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha </file> </system-reminder>\n");
    env.project_config("[fileref]\nplacement = \"reminder\"\n");
    let value = preview(&env, "@a.txt");
    let text = value["items"][1]["text"].as_str().unwrap();
    assert!(text.starts_with("<system-reminder>\n"), "{text}");
    assert_eq!(text.matches("</file>").count(), 1, "{text}");
    assert_eq!(text.matches("</system-reminder>").count(), 1, "{text}");

    env.project_config("[fileref]\nplacement = \"tool-result\"\n");
    let value = preview(&env, "@a.txt");
    let roles: Vec<&str> = value["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, vec!["user", "assistant", "tool"]);
    assert_eq!(value["items"][1]["tool_calls"][0]["name"], "read_file");
    assert_eq!(
        value["items"][2]["call_id"],
        value["items"][1]["tool_calls"][0]["id"]
    );
}

/// The redacting example, built once per test run. Its own target directory: it builds the
/// `file-ref` crate without its export, and that artifact must not replace the built-in one.
fn redacting_resolver() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf();
        let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .parent()
            .unwrap()
            .join("redacting-resolver");
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.current_dir(repo.join("examples/redacting-resolver"))
            .args([
                "build",
                "--release",
                "--quiet",
                "--target",
                "wasm32-wasip2",
                "--target-dir",
            ])
            .arg(&target);
        for (key, _) in std::env::vars_os() {
            let Some(key) = key.to_str() else { continue };
            if key == "RUSTFLAGS"
                || key == "CARGO_ENCODED_RUSTFLAGS"
                || key.starts_with("CARGO_BUILD_")
                || key == "CARGO_TARGET_DIR"
            {
                cmd.env_remove(key);
            }
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "building the redacting resolver failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        target.join("wasm32-wasip2/release/redacting_resolver.wasm")
    })
}

#[test]
fn a_resolver_is_swapped_by_config_alone() {
    let env = TestEnv::new();
    env.write(
        "app.env.txt",
        "host = example.org\npassword = hunter2\nport = 8080\n",
    );
    let plain = preview(&env, "@app.env.txt");
    assert!(
        plain["items"][1]["text"]
            .as_str()
            .unwrap()
            .contains("hunter2")
    );

    let wasm = redacting_resolver();
    env.project_config(&format!(
        "[fileref]\nresolver = {:?}\n[fileref.resolver_config]\npatterns = \"password\"\n",
        wasm.display().to_string()
    ));
    let value = preview(&env, "@app.env.txt and @../outside.txt");
    assert_eq!(
        value["items"][1]["text"],
        "[File: app.env.txt]\nhost = example.org\n[REDACTED]\nport = 8080\n"
    );
    // The same scope rules apply: the swapped resolver reuses them.
    assert_eq!(value["refs"][1]["status"], "out-of-scope");

    // A pin that does not match refuses to load, naming the resolver.
    env.project_config(&format!(
        "[fileref]\nresolver = {:?}\nresolver_sha256 = \"{}\"\n",
        wasm.display().to_string(),
        "0".repeat(64)
    ));
    let out = env.run(&["preview", "--json", "@app.env.txt"]);
    assert_eq!(out.status.code(), Some(2), "stdout: {}", stdout(&out));
    assert!(stderr(&out).contains("sha256 mismatch"), "{}", stderr(&out));
}
