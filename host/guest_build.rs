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
    ensure_target(target_root)?;
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

/// Make sure the toolchain running this build has the guest target's standard library.
///
/// rustup installs the targets a `rust-toolchain.toml` lists only when it installs the
/// toolchain itself; a toolchain that was already there is used as it is. When the target is
/// missing, add it through rustup (one build script at a time: a lock file under
/// `target_root`) with a visible line, or fail naming the exact command.
pub fn ensure_target(target_root: &Path) -> Result<(), String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    if target_installed(&rustc)? {
        return Ok(());
    }
    let toolchain = toolchain_name();
    let command = match &toolchain {
        Some(name) => format!("rustup target add --toolchain {name} {GUEST_TARGET}"),
        None => format!("rustup target add {GUEST_TARGET}"),
    };
    let _lock = lock_installs(target_root);
    // Another build script may have added it while this one waited for the lock.
    if target_installed(&rustc)? {
        return Ok(());
    }
    println!("cargo:warning=the {GUEST_TARGET} target is missing; installing it: {command}");
    let mut cmd = Command::new("rustup");
    cmd.args(["target", "add"]);
    if let Some(name) = &toolchain {
        cmd.args(["--toolchain", name]);
    }
    cmd.arg(GUEST_TARGET);
    let failure = match cmd.output() {
        Ok(output) if output.status.success() => {
            if target_installed(&rustc)? {
                println!("cargo:warning=installed the {GUEST_TARGET} target");
                return Ok(());
            }
            format!(
                "`{command}` succeeded but {rustc} still has no {GUEST_TARGET} standard library"
            )
        }
        Ok(output) => format!(
            "`{command}` failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ),
        Err(err) => format!("cannot run rustup ({err})"),
    };
    Err(format!(
        "the guest plugins need the {GUEST_TARGET} target, which is not installed: {failure}\n\
         install it and build again: {command}"
    ))
}

/// True when `rustc` has the guest target's standard library.
fn target_installed(rustc: &str) -> Result<bool, String> {
    let output = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", GUEST_TARGET])
        .output()
        .map_err(|err| format!("cannot run {rustc}: {err}"))?;
    if !output.status.success() {
        // A rustc that does not know the target at all: installing its library cannot help,
        // and the guest build names the problem.
        return Ok(true);
    }
    let libdir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let has_std = std::fs::read_dir(&libdir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with("libstd-") && name.ends_with(".rlib")
        })
    });
    Ok(has_std)
}

/// The rustup toolchain running this build: the one rustup's proxy chose (`RUSTUP_TOOLCHAIN`),
/// else the channel pinned in the nearest `rust-toolchain.toml`.
fn toolchain_name() -> Option<String> {
    if let Ok(name) = std::env::var("RUSTUP_TOOLCHAIN")
        && !name.is_empty()
    {
        return Some(name);
    }
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let file = manifest
        .ancestors()
        .map(|dir| dir.join("rust-toolchain.toml"))
        .find(|file| file.is_file())?;
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().find_map(|line| {
        let value = line
            .trim()
            .strip_prefix("channel")?
            .trim()
            .strip_prefix('=')?;
        Some(value.trim().trim_matches('"').to_owned())
    })
}

/// Holds an exclusive lock on `<target_root>/.guest-target.lock` until dropped; `None` when the
/// file cannot be created (then installs are not serialised, which rustup tolerates badly but
/// rarely meets: two build scripts missing the target at the same moment).
fn lock_installs(target_root: &Path) -> Option<std::fs::File> {
    std::fs::create_dir_all(target_root).ok()?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target_root.join(".guest-target.lock"))
        .ok()?;
    file.lock().ok()?;
    Some(file)
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
