//! `warden --version` names the commit the binary was built from and the `warden:plugin` WIT
//! versions it loads.

use std::process::Command;

use crate::support::{TestEnv, stderr, stdout};

#[test]
fn version_names_the_commit_and_every_wit_version_loaded() {
    let env = TestEnv::new();
    let out = env.run(&["--version"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap_or_default();
    assert!(first.starts_with("warden "), "{text}");
    // Every version the host loads, as the plugin API names them.
    let wit = format!(
        "warden:plugin WIT {}",
        warden::plugin::WitVersion::supported()
    );
    assert!(text.contains(&wit), "missing {wit:?} in: {text}");
    // The commit is one this repository holds (or `unknown` outside a checkout).
    let commit = first
        .split("(commit ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no commit in {first:?}"));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned();
    let in_checkout = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["rev-parse", "--git-dir"])
        .output()
        .is_ok_and(|o| o.status.success());
    if in_checkout {
        let known = Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(["cat-file", "-e", &format!("{commit}^{{commit}}")])
            .status()
            .unwrap();
        assert!(known.success(), "{commit} is not a commit of {root:?}");
    } else {
        assert_eq!(commit, "unknown");
    }
}
