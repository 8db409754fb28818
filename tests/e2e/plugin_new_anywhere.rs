//! `plugin new` writes Rust projects that build anywhere: the binary carries the SDK and writes
//! it into the project (`vendor/warden-plugin`, a path dependency, with a lock file of the
//! versions the SDK is built with). Every Rust world is written into a temporary directory
//! outside warden's source tree and built offline (the crates are in cargo's cache), then
//! passes `plugin check`.

use std::path::{Path, PathBuf};
use std::process::Command;

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::support::{TestEnv, stderr, stdout};

const WORLDS: &[&str] = &["interceptor", "hook", "resolver", "tool"];

fn repo() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).unwrap()
}

/// `cargo build --offline` of `project` as written (its own lock file), into `target`.
fn cargo_build(project: &Path, target: &Path) -> std::process::Output {
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
        .arg(target);
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key == "RUSTFLAGS"
            || key == "CARGO_ENCODED_RUSTFLAGS"
            || key == "CARGO_TARGET_DIR"
            || key.starts_with("CARGO_BUILD_")
        {
            cmd.env_remove(key);
        }
    }
    cmd.output().unwrap()
}

#[test]
fn plugin_new_projects_of_every_rust_world_build_outside_the_source_tree() {
    let env = TestEnv::new();
    let dir = env.outside().join("projects");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(
        !std::fs::canonicalize(&dir).unwrap().starts_with(repo()),
        "{} is inside the checkout",
        dir.display()
    );
    // One target directory for every project (and every run): the dependencies build once.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("plugin-new-anywhere");
    for world in WORLDS {
        let name = format!("my-{world}");
        let out = env.run_in(&dir, &["plugin", "new", &name, "--world", world]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let project = dir.join(&name);
        let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
        // An interceptor reads tool-call arguments through the SDK's `json` feature.
        let features = if *world == "interceptor" {
            format!(r#""{world}", "json""#)
        } else {
            format!(r#""{world}""#)
        };
        assert!(
            manifest.contains(&format!(
                r#"warden-plugin = {{ path = "vendor/warden-plugin", features = [{features}] }}"#
            )),
            "{manifest}"
        );
        let sdk = std::fs::read_to_string(project.join("vendor/warden-plugin/Cargo.toml")).unwrap();
        assert!(
            !sdk.contains("workspace = true") && !sdk.contains(".workspace"),
            "{sdk}"
        );
        for file in ["src/lib.rs", "wit/worlds.wit", "README.md"] {
            assert!(
                project.join("vendor/warden-plugin").join(file).is_file(),
                "vendor/warden-plugin/{file} missing"
            );
        }
        assert!(project.join("Cargo.lock").is_file());

        let built = cargo_build(&project, &target);
        assert!(
            built.status.success(),
            "building {} failed:\n{}",
            project.display(),
            String::from_utf8_lossy(&built.stderr)
        );
        let wasm = target.join(format!(
            "wasm32-wasip2/release/{}.wasm",
            name.replace('-', "_")
        ));
        let out = env.run(&["plugin", "check", "--json", wasm.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(value["world"], *world);
        if *world == "interceptor" {
            // The template's `pre_tool_call` reads the command with `ToolCall::args`.
            let call = |command: &str| {
                let input = serde_json::json!({"tool": "shell", "arguments": {"command": command}});
                let out = env.run(&[
                    "plugin",
                    "call",
                    wasm.to_str().unwrap(),
                    "pre-tool-call",
                    &input.to_string(),
                    "--config",
                    "word=deploy",
                ]);
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                serde_json::from_str::<Value>(stdout(&out).trim()).unwrap()
            };
            assert_eq!(call("./deploy.sh prod")["decision"], "deny");
            assert_eq!(call("cargo test")["decision"], "allow");
        }
    }
}

#[test]
fn plugin_new_says_where_the_sdk_comes_from_and_writes_the_other_languages_too() {
    let env = TestEnv::new();
    let dir = env.outside();
    let out = env.run_in(&dir, &["plugin", "new", "guard", "--world", "resolver"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let readme = std::fs::read_to_string(dir.join("guard/README.md")).unwrap();
    assert!(readme.contains("vendor/warden-plugin"), "{readme}");
    assert!(!readme.contains("crates.io"), "{readme}");

    // `--sdk-path` depends on that checkout instead, and carries no copy.
    let sdk = repo().join("plugins/sdk");
    let out = env.run_in(
        &dir,
        &[
            "plugin",
            "new",
            "linked",
            "--world",
            "hook",
            "--sdk-path",
            sdk.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let manifest = std::fs::read_to_string(dir.join("linked/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!("path = {:?}", sdk.display().to_string())),
        "{manifest}"
    );
    assert!(!dir.join("linked/vendor").exists());
    let out = env.run_in(
        &dir,
        &[
            "plugin",
            "new",
            "nowhere",
            "--world",
            "hook",
            "--sdk-path",
            "/no/such/sdk",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("/no/such/sdk"), "{}", stderr(&out));

    for (lang, file) in [("python", "app.py"), ("js", "app.js")] {
        let name = format!("script-{lang}");
        let out = env.run_in(
            &dir,
            &[
                "plugin",
                "new",
                &name,
                "--world",
                "interceptor",
                "--lang",
                lang,
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(dir.join(&name).join(file).is_file(), "{lang}: {file}");
    }
}
