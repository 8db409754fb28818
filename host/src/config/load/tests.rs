#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::config::{FailurePolicy, Placement, PluginKind};
use crate::domain::ProviderKind;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn sources(files: &[(LayerKind, &PathBuf)]) -> Sources {
    Sources {
        layers: files.iter().map(|(k, p)| (*k, (*p).clone())).collect(),
    }
}

#[test]
fn no_files_gives_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.toml");
    let loaded = load(&sources(&[(LayerKind::User, &missing)])).unwrap();
    assert_eq!(loaded.config, Config::default());
    assert_eq!(loaded.config.model.provider, ProviderKind::Echo);
    assert!(loaded.files.is_empty());
}

#[test]
fn later_layers_override_and_plugins_accumulate() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[model]\nprovider = \"anthropic\"\nmax_tokens = 100\n[[plugins]]\nname = \"a\"\nkind = \"hook\"\npath = \"a.wasm\"\n",
    );
    let project = write(
        dir.path(),
        "project.toml",
        "[model]\nmax_tokens = 200\n[fileref]\nplacement = \"reminder\"\n[[plugins]]\nname = \"b\"\nkind = \"interceptor\"\npath = \"/abs/b.wasm\"\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &project),
    ]))
    .unwrap();
    let c = &loaded.config;
    assert_eq!(c.model.provider, ProviderKind::Anthropic);
    assert_eq!(c.model.max_tokens, 200);
    assert_eq!(c.fileref.placement, Placement::Reminder);
    let names: Vec<_> = c.plugins.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    // Relative paths are relative to the file naming them; hooks always fail open.
    assert_eq!(c.plugins[0].path, dir.path().join("a.wasm"));
    assert_eq!(c.plugins[0].failure, FailurePolicy::Open);
    assert_eq!(c.plugins[1].kind, PluginKind::Interceptor);
    assert_eq!(c.plugins[1].failure, FailurePolicy::Closed);
    assert_eq!(c.plugins[1].path, PathBuf::from("/abs/b.wasm"));
}

#[test]
fn managed_locks_keys_grows_deny_and_can_require_pins() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "project.toml",
        "[model]\nprovider = \"openai\"\n[fileref]\ndeny = [\"secrets/**\"]\n",
    );
    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\nlocked = [\"model.provider\"]\nrequire_sha256 = true\n[fileref]\ndeny = [\"corp/**\"]\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    let c = &loaded.config;
    assert_eq!(
        c.model.provider,
        ProviderKind::Echo,
        "locked key keeps the default"
    );
    assert!(loaded.warnings.iter().any(|w| w.contains("model.provider")));
    for glob in [".env", "secrets/**", "corp/**"] {
        assert!(
            c.fileref.deny.iter().any(|g| g == glob),
            "{glob} in {:?}",
            c.fileref.deny
        );
    }
    assert!(c.policy.require_sha256);

    let unpinned = write(
        dir.path(),
        "unpinned.toml",
        "[[plugins]]\nname = \"x\"\nkind = \"hook\"\npath = \"x.wasm\"\n",
    );
    let err = load(&sources(&[
        (LayerKind::Project, &unpinned),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap_err()
    .to_string();
    assert!(err.contains("requires a `sha256` pin"), "{err}");
}

#[test]
fn a_project_cannot_loosen_policy() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "p.toml",
        "[policy]\nrequire_sha256 = false\nmanaged_plugins_only = false\n",
    );
    let managed = write(
        dir.path(),
        "m.toml",
        "[policy]\nmanaged_plugins_only = true\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    assert!(loaded.config.policy.managed_plugins_only);
}

#[test]
fn managed_plugins_only_drops_other_plugins_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "p.toml",
        "[[plugins]]\nname = \"mine\"\nkind = \"hook\"\npath = \"x.wasm\"\n",
    );
    let managed = write(
        dir.path(),
        "m.toml",
        "[policy]\nmanaged_plugins_only = true\n[[plugins]]\nname = \"corp\"\nkind = \"hook\"\npath = \"c.wasm\"\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    let names: Vec<_> = loaded
        .config
        .plugins
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["corp"]);
    assert!(loaded.warnings.iter().any(|w| w.contains("mine")));
}

#[test]
fn errors_name_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.toml",
        "[model]\nprovider = \"echo\"\nmax_tokenz = 5\n",
    );
    let err = load(&sources(&[(LayerKind::Project, &bad)])).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with(&format!("{}:3:", bad.display())), "{text}");
    assert!(text.contains("model.max_tokenz"), "{text}");

    let wrong_type = write(
        dir.path(),
        "type.toml",
        "[worker]\nmax_continuations = \"many\"\n",
    );
    let text = load(&sources(&[(LayerKind::Project, &wrong_type)]))
        .unwrap_err()
        .to_string();
    assert!(
        text.contains(":2:") && text.contains("worker.max_continuations"),
        "{text}"
    );

    let syntax = write(dir.path(), "syntax.toml", "[model\n");
    let text = load(&sources(&[(LayerKind::Project, &syntax)]))
        .unwrap_err()
        .to_string();
    assert!(text.contains("syntax.toml:1:"), "{text}");

    let dup = write(
        dir.path(),
        "dup.toml",
        "[[plugins]]\nname = \"a\"\nkind = \"hook\"\npath = \"a.wasm\"\n[[plugins]]\nname = \"a\"\nkind = \"hook\"\npath = \"b.wasm\"\n",
    );
    let text = load(&sources(&[(LayerKind::Project, &dup)]))
        .unwrap_err()
        .to_string();
    assert!(text.contains("used twice"), "{text}");
}
