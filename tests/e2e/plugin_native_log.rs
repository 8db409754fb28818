//! A plugin's logic tested natively with `cargo test`: the SDK's log macros write to stderr and
//! keep the lines for the test, instead of calling a host that is not there. The project comes
//! from `plugin new` (the SDK the binary carries), built offline.

use std::path::Path;
use std::process::Command;

use crate::support::{TestEnv, stderr};

#[test]
fn a_logging_plugin_passes_its_native_tests() {
    let env = TestEnv::new();
    let dir = env.outside().join("native-log");
    std::fs::create_dir_all(&dir).unwrap();
    let out = env.run_in(
        &dir,
        &["plugin", "new", "loud-guard", "--world", "interceptor"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let project = dir.join("loud-guard");
    let source = std::fs::read_to_string(project.join("src/lib.rs")).unwrap();
    assert!(source.contains("warden_plugin::info!"), "{source}");
    assert!(source.contains("take_logged"), "{source}");

    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("plugin-native-log");
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(&project)
        .args(["test", "--offline", "--", "--nocapture"])
        .arg("--test-threads=1")
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("WARDEN_LOG_LEVEL");
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key == "RUSTFLAGS" || key == "CARGO_ENCODED_RUSTFLAGS" || key.starts_with("CARGO_BUILD_")
        {
            cmd.env_remove(key);
        }
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "cargo test failed ({:?}):\n{err}",
        out.status
    );
    assert!(!err.contains("unreachable"), "{err}");
    // The line went to stderr, tagged with its level.
    assert!(
        err.contains("[INFO] the prompt mentions \"deploy\""),
        "{err}"
    );
}

#[test]
fn the_rust_readme_leads_with_the_dev_loop() {
    let env = TestEnv::new();
    let dir = env.outside().join("readme");
    std::fs::create_dir_all(&dir).unwrap();
    for world in ["interceptor", "hook", "tool"] {
        let name = format!("r-{world}");
        let out = env.run_in(&dir, &["plugin", "new", &name, "--world", world]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let readme = std::fs::read_to_string(dir.join(&name).join("README.md")).unwrap();
        let first_block = readme.split("```").nth(1).unwrap();
        assert!(
            first_block.contains("warden plugin dev ."),
            "{world}: {first_block}"
        );
        assert!(!readme.contains("{{"), "{readme}");
        assert!(readme.contains("warden plugin dev --stop"), "{readme}");
    }
}
