//! Compiles guest crates (wasm32-wasip2 components) from a build script. Shared by the build
//! scripts of `host` (the built-in resolver and the sample plugins) and `tests` (hostile
//! fixtures). Each crate is built by its own cargo invocation so that the SDK's world features
//! are never unified across plugins.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Target triple of every guest.
pub const GUEST_TARGET: &str = "wasm32-wasip2";

/// Build `crates` of the guest workspace at `workspace` in release mode into
/// `<target_root>/guests`; returns (crate name, component path) pairs.
pub fn build_guests(
    workspace: &Path,
    crates: &[&str],
    target_root: &Path,
) -> Result<Vec<(String, PathBuf)>, String> {
    println!("cargo:rerun-if-changed={}", workspace.display());
    let target_dir = target_root.join("guests");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut built = Vec::new();
    for name in crates {
        let mut cmd = Command::new(&cargo);
        cmd.current_dir(workspace)
            .args([
                "build",
                "--release",
                "--quiet",
                "--target",
                GUEST_TARGET,
                "-p",
                name,
            ])
            .arg("--target-dir")
            .arg(&target_dir);
        // The outer build's settings must not leak into the guest build.
        for (key, _) in std::env::vars_os() {
            let Some(key) = key.to_str() else { continue };
            let leaks = key == "RUSTFLAGS"
                || key == "CARGO_ENCODED_RUSTFLAGS"
                || key == "CARGO_TARGET_DIR"
                || key == "CARGO_BUILD_TARGET"
                || key == "RUSTC_WORKSPACE_WRAPPER"
                || key.starts_with("CARGO_PROFILE_")
                || key.starts_with("CARGO_BUILD_")
                || key.starts_with("CARGO_CFG_")
                || key.starts_with("CARGO_FEATURE_");
            if leaks {
                cmd.env_remove(key);
            }
        }
        let output = cmd
            .output()
            .map_err(|err| format!("cannot run {cargo} to build guest `{name}`: {err}"))?;
        if !output.status.success() {
            return Err(format!(
                "building guest `{name}` for {GUEST_TARGET} failed (is the target installed? `rustup target add {GUEST_TARGET}`):\n{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let file = target_dir
            .join(GUEST_TARGET)
            .join("release")
            .join(format!("{}.wasm", name.replace('-', "_")));
        if !file.is_file() {
            return Err(format!(
                "guest `{name}` built but {} is missing",
                file.display()
            ));
        }
        built.push(((*name).to_owned(), file));
    }
    Ok(built)
}

/// `file-ref` → `FILE_REF`.
pub fn env_name(name: &str) -> String {
    name.to_uppercase().replace('-', "_")
}

/// The workspace's target directory, as seen from a build script's `OUT_DIR`
/// (`<target>/<profile>/build/<pkg>-<hash>/out`).
pub fn target_root() -> PathBuf {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    out.ancestors()
        .nth(4)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("target"))
}
