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
        "[tools.shell]\nhide = [\"~/.kube\"]\ntimeout_s = 30\n[policy.project_tool_grants]\nenv = [\"CARGO_HOME\"]\n",
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
fn a_project_passes_no_variable_the_user_did_not_list_nor_any_of_warden_s_own() {
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
    assert!(
        err.contains("\"GITHUB_TOKEN\", a name that looks like a secret"),
        "{err}"
    );
    // A name no suffix rule catches needs the user's say as well.
    for plain in ["PGPASSWORD", "DATABASE_URL"] {
        let other = write(
            dir.path(),
            "other.toml",
            &format!("[tools.shell]\nenv = [\"{plain}\"]\n"),
        );
        let err = load(&layers(&[(LayerKind::Project, &other)]))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("policy.project_tool_grants.env"),
            "{plain}: {err}"
        );
        assert!(err.contains(plain), "{err}");
    }
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

fn load_err(files: &[(LayerKind, &PathBuf)]) -> String {
    load(&layers(files))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

#[test]
fn allowed_hosts_are_checked_where_written_and_a_project_cannot_grant_them() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[tools.shell]\nallowed_hosts = [\"api.github.com\", \"*.pypi.org:443\"]\n",
    );
    let project = write(
        dir.path(),
        "project.toml",
        "[tools.shell]\nallowed_hosts = [\"evil.example.com\"]\n",
    );
    let loaded = load(&layers(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &project),
    ]))
    .unwrap();
    assert_eq!(
        loaded.config.tools.shell.allowed_hosts,
        ["api.github.com", "*.pypi.org:443"]
    );
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("`tools.shell.allowed_hosts` cannot be set by a project")),
        "{:?}",
        loaded.warnings
    );
    let bad = write(
        dir.path(),
        "bad.toml",
        "[tools.shell]\nallowed_hosts = [\"https://api.github.com\"]\n",
    );
    let err = load_err(&[(LayerKind::User, &bad)]);
    assert!(
        err.contains("bad.toml") && err.contains("tools.shell.allowed_hosts"),
        "{err}"
    );
    let bad = write(
        dir.path(),
        "bad2.toml",
        "[tools.shell]\nallowed_hosts = [1]\n",
    );
    assert!(load_err(&[(LayerKind::User, &bad)]).contains("tools.shell.allowed_hosts"));
}

#[test]
fn the_managed_ceiling_refuses_hosts_outside_it_and_full_network_and_may_be_locked() {
    let dir = tempfile::tempdir().unwrap();
    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\nshell_allowed_hosts = [\"*.example.com\", \"localhost:8080\"]\n",
    );
    let inside = write(
        dir.path(),
        "inside.toml",
        "[tools.shell]\nallowed_hosts = [\"api.example.com:443\", \"localhost:8080\"]\n",
    );
    let loaded = load(&layers(&[
        (LayerKind::User, &inside),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    assert_eq!(loaded.config.tools.shell.allowed_hosts.len(), 2);
    let outside = write(
        dir.path(),
        "outside.toml",
        "[tools.shell]\nallowed_hosts = [\"api.example.com\", \"localhost\"]\n",
    );
    let err = load_err(&[(LayerKind::User, &outside), (LayerKind::Managed, &managed)]);
    assert!(
        err.contains("outside.toml")
            && err.contains("tools.shell.allowed_hosts")
            && err.contains("\"localhost\"")
            && err.contains("policy.shell_allowed_hosts"),
        "{err}"
    );
    let network = write(
        dir.path(),
        "network.toml",
        "[tools.shell]\nnetwork = true\n",
    );
    let err = load_err(&[(LayerKind::User, &network), (LayerKind::Managed, &managed)]);
    assert!(
        err.contains("tools.shell.network") && err.contains("policy.shell_allowed_hosts"),
        "{err}"
    );
    // The operator's own grant is not held to the operator's ceiling.
    let own = write(
        dir.path(),
        "own.toml",
        "[policy]\nshell_allowed_hosts = [\"a.com\"]\n[tools.shell]\nallowed_hosts = [\"b.com\"]\n",
    );
    let loaded = load(&layers(&[(LayerKind::Managed, &own)])).unwrap();
    assert_eq!(loaded.config.tools.shell.allowed_hosts, ["b.com"]);
    // Only the managed layer sets the ceiling; a malformed one is an error of its file.
    let user_policy = write(
        dir.path(),
        "user_policy.toml",
        "[policy]\nshell_allowed_hosts = [\"a.com\"]\n",
    );
    let loaded = load(&layers(&[(LayerKind::User, &user_policy)])).unwrap();
    assert_eq!(loaded.config.policy.shell_allowed_hosts, None);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("`policy.shell_allowed_hosts` is only honoured")),
        "{:?}",
        loaded.warnings
    );
    let broken = write(
        dir.path(),
        "broken.toml",
        "[policy]\nshell_allowed_hosts = [\"*\"]\n",
    );
    let err = load_err(&[(LayerKind::Managed, &broken)]);
    assert!(
        err.contains("broken.toml") && err.contains("policy.shell_allowed_hosts"),
        "{err}"
    );
    // Locked: the user's list is dropped with a warning.
    let locked = write(
        dir.path(),
        "locked.toml",
        "[policy]\nlocked = [\"tools.shell.allowed_hosts\"]\n",
    );
    let loaded = load(&layers(&[
        (LayerKind::User, &inside),
        (LayerKind::Managed, &locked),
    ]))
    .unwrap();
    assert!(loaded.config.tools.shell.allowed_hosts.is_empty());
}
