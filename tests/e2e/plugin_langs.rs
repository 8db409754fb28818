//! The same interceptor written three more ways (`examples/wit-bindgen-interceptor`,
//! `examples/python-interceptor`, `examples/js-interceptor`), each built by its own `build.sh`
//! once per test run and loaded unchanged by the real binary: the preview shows its item, and
//! its cancel variant cancels the turn.
//!
//! A test whose toolchain is missing prints `SKIP <example>: <tool> not installed` and passes,
//! except under `CI=true`, where CI has installed the tools and a missing one is a failure.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{TestEnv, stderr, stdout};

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The tool an example's `build.sh` needs, if it is missing here.
fn missing_tool(example: &str) -> Option<&'static str> {
    let on_path = |tool: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    match example {
        "python-interceptor" | "python-tool-guard" | "python-hook" | "python-tool"
        | "python-resolver" => (!on_path("componentize-py")).then_some("componentize-py"),
        "js-interceptor" | "js-tool" | "js-hook" | "js-resolver" => {
            componentize_js().is_none().then_some("componentize-js")
        }
        _ => None,
    }
}

/// The componentize-js the JavaScript examples share (installed by `npm install` in
/// examples/js-interceptor, as .ci/run does), or `$COMPONENTIZE_JS`.
pub fn componentize_js() -> Option<PathBuf> {
    if let Some(set) = std::env::var_os("COMPONENTIZE_JS") {
        return Some(PathBuf::from(set));
    }
    let local = repo().join("examples/js-interceptor/node_modules/.bin/componentize-js");
    local.exists().then_some(local)
}

/// Each example built so far, with its component (`None`: skipped).
type Built = Vec<(&'static str, Option<PathBuf>)>;

/// Run `examples/<example>/build.sh` once per test run; `None` (after a printed skip line) when
/// its tool is missing outside CI.
pub fn built_example(example: &'static str) -> Option<PathBuf> {
    static BUILT: OnceLock<std::sync::Mutex<Built>> = OnceLock::new();
    let cache = BUILT.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, path)) = cache.iter().find(|(name, _)| *name == example) {
        return path.clone();
    }
    let path = build(example);
    cache.push((example, path.clone()));
    path
}

/// Print `SKIP <what>: <tool> not installed` (a failure under `CI=true`).
pub fn skip(what: &str, tool: &str) {
    let line = format!("SKIP {what}: {tool} not installed");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true: .ci/run must install it");
    }
    // Straight to the process's stderr: the test harness captures `eprintln!` of passing
    // tests, and a skip must never be silent.
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// True when `componentize-py` is on the PATH.
pub fn has_componentize_py() -> bool {
    missing_tool("python-interceptor").is_none()
}

fn build(example: &'static str) -> Option<PathBuf> {
    if let Some(tool) = missing_tool(example) {
        skip(example, tool);
        return None;
    }
    let dir = repo().join("examples").join(example);
    let mut cmd = Command::new("bash");
    cmd.arg(dir.join("build.sh"));
    // The Rust example builds offline into the tests' target tree, away from the outer build.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join(example);
    cmd.env("CARGO_TARGET_DIR", target);
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key == "RUSTFLAGS" || key == "CARGO_ENCODED_RUSTFLAGS" || key.starts_with("CARGO_BUILD_")
        {
            cmd.env_remove(key);
        }
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{example}/build.sh failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let wasm = dir.join("plugin.wasm");
    assert!(
        wasm.is_file(),
        "{example}/build.sh did not write plugin.wasm"
    );
    Some(wasm)
}

fn config(path: &Path, word: &str, context: &str, mode: &str) -> String {
    format!(
        "[[plugins]]\nname = \"kw\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\nword = \"{word}\"\ncontext = \"{context}\"\nmode = \"{mode}\"\n",
        path.display()
    )
}

/// Preview shows the plugin's one system item when the word is in the prompt and nothing extra
/// when it is not; the cancel variant stops the turn (exit 3) with the configured reason; a bad
/// config is refused with the plugin's own message. One environment, so that the component is
/// compiled once (into that environment's cache).
fn loads_unchanged_and_behaves_like_the_sample(example: &'static str) {
    let Some(wasm) = built_example(example) else {
        return;
    };
    let env = TestEnv::new();
    env.project_config(&config(&wasm, "deploy", "Deploys go through CI.", "add"));
    let out = env.run(&["preview", "--json", "how do I deploy this?"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        value["items"],
        json!([
            {"role": "user", "text": "how do I deploy this?", "source": "user"},
            {"role": "system", "text": "Deploys go through CI.", "source": "plugin:kw"},
        ])
    );
    let out = env.run(&["preview", "--json", "unrelated"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["items"].as_array().unwrap().len(), 1, "{value}");

    env.project_config(&config(&wasm, "secret", "that topic is blocked", "cancel"));
    let out = env.run(&["run", "--json", "tell me the secret"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["outcome"], "cancelled");
    assert_eq!(value["reason"], "that topic is blocked");
    assert!(stderr(&out).contains("plugin:kw"), "{}", stderr(&out));

    env.project_config(&config(&wasm, "secret", "x", "shout"));
    let out = env.run(&["preview", "hello"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("config key `mode`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn wit_bindgen_interceptor_loads_unchanged_and_behaves_like_the_sample() {
    loads_unchanged_and_behaves_like_the_sample("wit-bindgen-interceptor");
}

#[test]
fn python_interceptor_loads_unchanged_and_behaves_like_the_sample() {
    loads_unchanged_and_behaves_like_the_sample("python-interceptor");
}

#[test]
fn js_interceptor_loads_unchanged_and_behaves_like_the_sample() {
    loads_unchanged_and_behaves_like_the_sample("js-interceptor");
}
