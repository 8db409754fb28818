#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use super::*;
use crate::config::{LayerKind, Sources, load};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn layers(files: &[(LayerKind, &PathBuf)]) -> Sources {
    Sources {
        layers: files.iter().map(|(k, p)| (*k, (*p).clone())).collect(),
        managed_is_system: false,
        notes: Vec::new(),
    }
}

#[test]
fn defaults_hide_the_credentials_and_cut_the_network() {
    let shell = ShellConfig::default();
    assert_eq!(shell.timeout_s, SHELL_TIMEOUT_S);
    assert!(!shell.network);
    assert_eq!(shell.sandbox, ShellSandbox::Required);
    assert!(shell.hide.iter().any(|h| h == "~/.ssh"));
}

#[test]
fn a_project_cannot_loosen_the_sandbox_and_hide_lists_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[tools.shell]\nhide = [\"~/.kube\"]\ntimeout_s = 30\n",
    );
    let project = write(
        dir.path(),
        "project.toml",
        "[tools.shell]\nsandbox = \"none\"\nnetwork = true\nhide = [\"secrets\"]\nenv = [\"CARGO_HOME\"]\n",
    );
    let loaded = load(&layers(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &project),
    ]))
    .unwrap();
    let shell = &loaded.config.tools.shell;
    assert_eq!(shell.sandbox, ShellSandbox::Required);
    assert!(!shell.network);
    assert_eq!(shell.timeout_s, 30);
    for path in ["~/.ssh", "~/.kube", "secrets"] {
        assert!(
            shell.hide.iter().any(|h| h == path),
            "{path}: {:?}",
            shell.hide
        );
    }
    assert_eq!(shell.env, ["CARGO_HOME"]);
    let warned = loaded.warnings.join("\n");
    assert!(
        warned.contains("`tools.shell.sandbox` cannot be set by a project")
            && warned.contains("`tools.shell.network` cannot be set by a project"),
        "{warned}"
    );
}

#[test]
fn a_project_may_not_pass_a_secret_looking_variable_nor_anyone_warden_s_own() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "project.toml",
        "[tools.shell]\nenv = [\"GITHUB_TOKEN\"]\n",
    );
    let err = load(&layers(&[(LayerKind::Project, &project)]))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("`GITHUB_TOKEN` looks like a secret"), "{err}");
    // The user allows it for projects: accepted.
    let user = write(
        dir.path(),
        "user.toml",
        "[policy.project_tool_grants]\nenv = [\"GITHUB_TOKEN\"]\n",
    );
    let loaded = load(&layers(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &project),
    ]))
    .unwrap();
    assert_eq!(loaded.config.tools.shell.env, ["GITHUB_TOKEN"]);
    let user = write(
        dir.path(),
        "user2.toml",
        "[tools.shell]\nenv = [\"WARDEN_HOME\"]\n",
    );
    let err = load(&layers(&[(LayerKind::User, &user)]))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("warden's own variables"), "{err}");
}

#[test]
fn managed_policy_forbids_running_unconfined_and_lowers_the_deadline_ceiling() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[tools.shell]\nsandbox = \"none\"\ntimeout_s = 900\n",
    );
    let loaded = load(&layers(&[(LayerKind::User, &user)])).unwrap();
    assert_eq!(loaded.config.tools.shell.sandbox, ShellSandbox::None);
    assert_eq!(loaded.config.tools.shell.timeout_s, MAX_SHELL_TIMEOUT_S);
    assert!(
        loaded.warnings.iter().any(|w| w.contains("clamped to 600")),
        "{:?}",
        loaded.warnings
    );
    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\nallow_unsandboxed_shell = false\n",
    );
    let err = load(&layers(&[
        (LayerKind::User, &user),
        (LayerKind::Managed, &managed),
    ]))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(err.contains("allow_unsandboxed_shell = false"), "{err}");
    let managed = write(
        dir.path(),
        "managed2.toml",
        "[policy]\nmax_shell_timeout_s = 60\nlocked = [\"tools.shell.network\"]\n",
    );
    let user = write(
        dir.path(),
        "user3.toml",
        "[tools.shell]\nnetwork = true\ntimeout_s = 300\n",
    );
    let loaded = load(&layers(&[
        (LayerKind::User, &user),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    assert_eq!(loaded.config.tools.shell.timeout_s, 60);
    assert!(!loaded.config.tools.shell.network);
}
