//! What `warden --version` names besides the crate version: the commit the binary was built
//! from and the `warden:plugin` WIT versions it loads.
//!
//! The commit comes from `WARDEN_COMMIT` when the builder sets it, else from `git` in the
//! source tree, else it is `unknown` (a crate tarball carries no `.git`). The WIT versions are
//! the released ones listed in `wit/RELEASED`, one adapter each.

use std::path::Path;
use std::process::Command;

/// Print the `cargo:` lines that set `WARDEN_COMMIT` and `WARDEN_WIT_VERSIONS`.
pub fn emit(root: &Path) -> Result<(), String> {
    println!("cargo:rerun-if-env-changed=WARDEN_COMMIT");
    let commit = match std::env::var("WARDEN_COMMIT") {
        Ok(commit) if !commit.trim().is_empty() => commit.trim().to_owned(),
        _ => git_commit(root).unwrap_or_else(|| "unknown".to_owned()),
    };
    println!("cargo:rustc-env=WARDEN_COMMIT={commit}");
    let released = root.join("wit").join("RELEASED");
    println!("cargo:rerun-if-changed={}", released.display());
    let text = std::fs::read_to_string(&released)
        .map_err(|err| format!("{}: {err}", released.display()))?;
    let versions: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    if versions.is_empty() {
        return Err(format!("{}: lists no version", released.display()));
    }
    println!(
        "cargo:rustc-env=WARDEN_WIT_VERSIONS={}",
        versions.join(", ")
    );
    Ok(())
}

/// The short commit of `root`'s checkout, if `git` and a checkout are there; the build reruns
/// when HEAD or the branch it names moves.
fn git_commit(root: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", "HEAD"]) {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", &branch])
    {
        println!("cargo:rerun-if-changed={path}");
    }
    Some(commit)
}
