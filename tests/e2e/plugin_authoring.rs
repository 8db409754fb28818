//! What plugin authors use besides the SDK, through the real binary: `plugin new --sdk-path`
//! (builds and passes `plugin check`), `plugin replay` against a recorded session,
//! `plugin pin` after a rebuild, and the log filter that shows plugin logs alone.

use std::path::{Path, PathBuf};
use std::process::Command;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `cargo build` of a generated project, offline, into a target directory shared by these
/// tests. The project's lock file is seeded from the guest workspace's, so offline resolution
/// picks the crates the SDK is built with (already in the local cache).
fn cargo_build(project: &Path) -> PathBuf {
    std::fs::copy(
        repo().join("plugins/Cargo.lock"),
        project.join("Cargo.lock"),
    )
    .unwrap();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("plugin-new");
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(project)
        .args([
            "build",
            "--release",
            "--offline",
            "--quiet",
            "--target",
            "wasm32-wasip2",
        ])
        .arg("--target-dir")
        .arg(&target);
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
        "building {} failed:\n{}",
        project.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let name = project
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace('-', "_");
    target.join(format!("wasm32-wasip2/release/{name}.wasm"))
}

fn new_project_builds_and_checks(world: &str) {
    let env = TestEnv::new();
    let name = format!("my-{world}");
    let sdk = repo().join("plugins/sdk");
    let out = env.run(&[
        "plugin",
        "new",
        &name,
        "--world",
        world,
        "--sdk-path",
        sdk.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let project = env.workspace().join(&name);
    for file in ["Cargo.toml", "README.md", "src/lib.rs"] {
        assert!(project.join(file).is_file(), "{file} missing");
    }
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!("features = [\"{world}\"")),
        "{manifest}"
    );
    assert!(
        std::fs::read_to_string(project.join("src/lib.rs"))
            .unwrap()
            .contains("#[test]")
    );
    // The same name again is refused, and nothing is overwritten.
    let again = env.run(&["plugin", "new", &name, "--world", world]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));

    let wasm = cargo_build(&project);
    let out = env.run(&["plugin", "check", "--json", wasm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["world"], world);
}

/// `--sdk-path` builds against that checkout of the SDK (every world is built from the SDK
/// the binary carries in `plugin_new_anywhere`).
#[test]
fn plugin_new_with_sdk_path_builds_and_passes_check() {
    new_project_builds_and_checks("interceptor");
}

/// Three prompts recorded with no plugin; a guard that would cancel the second one.
#[test]
fn replay_shows_the_guard_would_cancel_exactly_the_second_prompt() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--json", "first question"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = first["session"].as_str().unwrap().to_owned();
    for prompt in ["second question about the forbidden plan", "third question"] {
        let out = env.run(&["run", "--session", &session, prompt]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let history_before = std::fs::read(
        env.state_home()
            .join("sessions")
            .join(&session)
            .join("history.jsonl"),
    )
    .unwrap();

    let guard = fixtures::pattern_guard();
    let args = |extra: &[&str]| {
        let mut args = vec![
            "plugin".to_owned(),
            "replay".to_owned(),
            session.clone(),
            guard.display().to_string(),
            "--config".to_owned(),
            "pattern=forbidden".to_owned(),
            "--config".to_owned(),
            "reason=blocked topic".to_owned(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = env.run(&refs);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };

    let value: Value = serde_json::from_str(&run(&["--json"])).unwrap();
    let prompts: Vec<Value> = value["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["point"] == "on-prompt-submit")
        .map(|p| {
            json!([
                p["turn"],
                p["input"]["prompt"],
                p["then"]["decision"],
                p["now"]["decision"],
                p["differs"]
            ])
        })
        .collect();
    assert_eq!(
        prompts,
        vec![
            json!([1, "first question", "continue", "continue", false]),
            json!([
                2,
                "second question about the forbidden plan",
                "continue",
                "cancel",
                true
            ]),
            json!([3, "third question", "continue", "continue", false]),
        ]
    );
    // Every request and turn end was replayed too, and agrees.
    let kinds: Vec<&str> = value["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["point"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["on-prompt-submit", "pre-llm-request", "on-turn-end"].repeat(3)
    );
    assert_eq!(value["differ"], 1);

    // --diff prints exactly that point, with the reason and who decided, then the summary.
    let text = run(&["--diff"]);
    assert_eq!(
        text,
        "turn 2 on-prompt-submit \"second question about the forbidden plan\"  ← differs\n  then: continue\n  now:  cancel(blocked topic) by pattern_guard\nreplayed 7 of 9 call points: 1 differs, 2 would not have happened\n"
    );
    // Nothing was committed.
    let history_after = std::fs::read(
        env.state_home()
            .join("sessions")
            .join(&session)
            .join("history.jsonl"),
    )
    .unwrap();
    assert_eq!(history_before, history_after);
}

#[test]
fn pin_writes_the_new_digest_into_the_config_that_declared_the_plugin() {
    let env = TestEnv::new();
    let plugin = env.workspace().join("kw.wasm");
    std::fs::copy(fixtures::keyword_context(), &plugin).unwrap();
    // Pinned to the digest of an older build.
    let stale = "0".repeat(64);
    let config = env.project_config(&format!(
        "# team plugins\n[[plugins]]\nname = \"kw\"\nkind = \"interceptor\"\npath = \"../kw.wasm\"\nsha256 = \"{stale}\"  # pinned\n[plugins.config]\nword = \"deploy\"\n"
    ));
    let out = env.run(&["preview", "deploy"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("sha256 mismatch"), "{}", stderr(&out));

    let out = env.run(&["plugin", "pin", "kw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let digest = {
        let check = env.run(&["plugin", "check", "--json", plugin.to_str().unwrap()]);
        let value: Value = serde_json::from_str(&stdout(&check)).unwrap();
        value["sha256"].as_str().unwrap().to_owned()
    };
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with("# team plugins\n"), "{text}");
    assert!(text.contains(&format!("sha256 = \"{digest}\"")), "{text}");
    assert!(text.contains("word = \"deploy\""), "{text}");
    let out = env.run(&["preview", "deploy"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let out = env.run(&["plugin", "pin", "nope"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `WARDEN_LOG=warden::plugin=debug` shows the plugins' own log lines and nothing of the
/// engine underneath (Cranelift logs every compiled function at `debug`). Each run has its own
/// state home, so each compiles the components afresh instead of reading a cache.
#[test]
fn plugin_log_filter_shows_plugin_logs_and_not_wasmtime_internals() {
    let run = |filter: &str| {
        let env = TestEnv::new();
        env.project_config(&format!(
            "[[plugins]]\nname = \"kw\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\nword = \"deploy\"\n",
            fixtures::keyword_context().display()
        ));
        let mut cmd = env.command();
        cmd.env("WARDEN_LOG", filter)
            .args(["preview", "deploy now"]);
        let out = crate::support::output_within(cmd, crate::support::HANG_LIMIT);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        strip_ansi(&stderr(&out))
    };
    let is_engine_internal = |line: &str| line.contains("timing:") || line.contains("cranelift");
    let everything = run("debug");
    assert!(
        everything.lines().any(is_engine_internal),
        "at `debug` the engine logs its own work; the filter below must remove it"
    );
    let plugin_only = run("warden::plugin=debug");
    assert!(
        plugin_only.contains("found \"deploy\" plugin=\"kw\""),
        "{plugin_only}"
    );
    for line in plugin_only.lines() {
        assert!(
            line.contains("plugin="),
            "a line not about a plugin: {line}"
        );
        assert!(!is_engine_internal(line), "an engine line: {line}");
    }
    // Only the guests' own lines.
    let guest_only = run("warden::plugin::guest=debug");
    assert_eq!(
        guest_only
            .lines()
            .map(|l| l.split_once(' ').map_or(l, |(_, rest)| rest))
            .collect::<Vec<_>>(),
        ["DEBUG found \"deploy\" plugin=\"kw\""]
    );
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
