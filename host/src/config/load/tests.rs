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
        managed_is_system: false,
        notes: Vec::new(),
    }
}

#[test]
fn no_files_gives_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.toml");
    let loaded = load(&sources(&[(LayerKind::User, &missing)])).unwrap();
    // The built-in rules are in force unless a layer turns them off.
    let mut expected = Config::default();
    expected.rules.rules = crate::domain::rules::builtin_rules();
    expected.rules.user_file = Some(missing.clone());
    assert_eq!(loaded.config, expected);
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

fn env_of(pairs: &[(&str, &Path)]) -> impl Fn(&str) -> Option<String> + use<> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.display().to_string()))
        .collect();
    move |key| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

#[test]
fn the_system_managed_file_wins_over_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let system = write(
        dir.path(),
        "system.toml",
        "[fileref]\ndeny = [\"corp/**\"]\n",
    );
    let other = write(dir.path(), "other.toml", "");
    let env = env_of(&[("WARDEN_MANAGED_CONFIG", &other)]);
    let sources = Sources::standard_with_system(dir.path(), &env, &system);
    assert_eq!(sources.layers.last().unwrap().1, system);
    let loaded = load(&sources).unwrap();
    assert!(loaded.warnings[0].contains("WARDEN_MANAGED_CONFIG is ignored"));
    let managed = loaded.managed.unwrap();
    assert_eq!(managed.path, system);
    assert!(managed.system);
    use sha2::Digest;
    let expected = hex::encode(sha2::Sha256::digest(b"[fileref]\ndeny = [\"corp/**\"]\n"));
    assert_eq!(managed.sha256, expected);

    // Without a system file the variable names the managed file.
    std::fs::remove_file(&system).unwrap();
    let sources = Sources::standard_with_system(dir.path(), &env, &system);
    assert_eq!(sources.layers.last().unwrap().1, other);
    assert!(!sources.managed_is_system);
}

#[test]
fn a_managed_path_that_exists_but_cannot_be_used_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let dangling = dir.path().join("dangling.toml");
    std::os::unix::fs::symlink(dir.path().join("nothing"), &dangling).unwrap();
    let err = load(&sources(&[(LayerKind::Managed, &dangling)]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("symbolic link to nothing"), "{err}");
    let directory = dir.path().join("dir.toml");
    std::fs::create_dir(&directory).unwrap();
    let err = load(&sources(&[(LayerKind::Managed, &directory)]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a regular file"), "{err}");
    // A dangling symbolic link at the system path still keeps the variable out.
    let other = write(dir.path(), "other.toml", "");
    let env = env_of(&[("WARDEN_MANAGED_CONFIG", &other)]);
    let sources = Sources::standard_with_system(dir.path(), &env, &dangling);
    assert_eq!(sources.layers.last().unwrap().1, dangling);
}

#[test]
fn locks_cover_tables_and_plugins_and_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "p.toml",
        "[model]\nmax_tokens = 9\n[fileref]\ndeny = [\"x\"]\n[[plugins]]\nname = \"mine\"\nkind = \"hook\"\npath = \"x.wasm\"\n",
    );
    let managed = write(
        dir.path(),
        "m.toml",
        "[policy]\nlocked = [\"model\", \"plugins\", \"fileref.deny\"]\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    let c = &loaded.config;
    assert_eq!(c.model.max_tokens, 4096);
    assert!(c.plugins.is_empty());
    assert!(!c.fileref.deny.contains(&"x".to_owned()));
    // One warning for every ignored setting, naming each key and file.
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    for key in [
        "`model` is locked",
        "`plugins` is locked",
        "`fileref.deny` is locked",
    ] {
        assert!(loaded.warnings[0].contains(key), "{:?}", loaded.warnings);
    }
    let lock = loaded.locked_by("model.max_tokens").unwrap();
    assert_eq!(
        (lock.key.as_str(), lock.layer, lock.line),
        ("model", LayerKind::Managed, 2)
    );
    assert!(loaded.locked_by("worker.max_steps").is_none());
}

#[test]
fn tightening_survives_the_managed_layer_and_size_caps_only_shrink() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "p.toml",
        "[policy]\nrequire_sha256 = true\nmax_component_mb = 8\n",
    );
    let managed = write(dir.path(), "m.toml", "[policy]\nmax_component_mb = 16\n");
    let loaded = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    assert!(loaded.config.policy.require_sha256);
    assert_eq!(loaded.config.policy.max_component_mb, 8);
    let too_big = write(
        dir.path(),
        "big.toml",
        "[policy]\nmax_component_mb = 1024\n",
    );
    let err = load(&sources(&[(LayerKind::Managed, &too_big)]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("max_component_mb"), "{err}");
}

#[test]
fn managed_plugins_only_keeps_other_layers_resolver_out() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "p.toml",
        "[fileref]\nresolver = \"/x/leaky.wasm\"\n[fileref.resolver_config]\na = \"b\"\n",
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
    assert_eq!(loaded.config.fileref.resolver, None);
    assert!(loaded.config.fileref.resolver_config.is_empty());
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("fileref.resolver") && w.contains("managed plugins only"))
    );
    let managed = write(
        dir.path(),
        "m2.toml",
        "[policy]\nmanaged_plugins_only = true\n[fileref]\nresolver = \"/corp/r.wasm\"\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    assert_eq!(
        loaded.config.fileref.resolver,
        Some(PathBuf::from("/corp/r.wasm"))
    );
}

fn tool(name: &str, grants: &str) -> String {
    format!("[[plugins]]\nname = \"{name}\"\nkind = \"tool\"\npath = \"{name}.wasm\"\n{grants}")
}

#[test]
fn grant_keys_are_only_valid_on_tool_entries() {
    let dir = tempfile::tempdir().unwrap();
    for key in [
        "fs = \"read\"",
        "allowed_hosts = []",
        "env = [\"HOME\"]",
        "approve = \"ask\"",
    ] {
        let project = write(
            dir.path(),
            "project.toml",
            &format!(
                "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"g.wasm\"\n{key}\n"
            ),
        );
        let err = load(&sources(&[(LayerKind::Project, &project)]))
            .unwrap_err()
            .to_string();
        let name = key.split(' ').next().unwrap();
        assert!(err.starts_with(&project.display().to_string()), "{err}");
        assert!(err.contains(&format!("plugins.guard.{name}")), "{err}");
        assert!(err.contains("only valid on `kind = \"tool\"`"), "{err}");
    }
}

#[test]
fn grant_values_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    for (grant, key) in [
        (
            "allowed_hosts = [\"https://api.example.com\"]",
            "allowed_hosts",
        ),
        ("allowed_hosts = [\"*.example.com\"]", "allowed_hosts"),
        ("allowed_hosts = [\"api.example.com/v1\"]", "allowed_hosts"),
        ("env = [\"A=B\"]", "env"),
    ] {
        let project = write(
            dir.path(),
            "project.toml",
            &tool("grep", &format!("{grant}\n")),
        );
        let err = load(&sources(&[(LayerKind::Project, &project)]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("plugins.grep.{key}")),
            "{grant}: {err}"
        );
    }
    let project = write(
        dir.path(),
        "project.toml",
        &tool("grep", "fs = \"everything\"\n"),
    );
    assert!(load(&sources(&[(LayerKind::Project, &project)])).is_err());
}

#[test]
fn tool_grants_within_the_ceiling_load_with_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "project.toml",
        &tool(
            "grep",
            "fs = \"read\"\nallowed_hosts = [\"api.example.com:443\"]\nenv = [\"LANG\"]\napprove = \"ask\"\n",
        ),
    );
    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\nmax_tool_grants = { fs = \"read\", allowed_hosts = [\"api.example.com:443\"], env = [\"LANG\"] }\n\
         project_tool_grants = { allowed_hosts = [\"api.example.com:443\"], env = [\"LANG\"] }\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    let entry = &loaded.config.plugins[0];
    assert_eq!(entry.grants.fs, crate::config::FsGrant::Read);
    assert_eq!(entry.grants.allowed_hosts, ["api.example.com:443"]);
    assert_eq!(entry.grants.env, ["LANG"]);
    assert_eq!(entry.approve, crate::config::Approve::Ask);
}

#[test]
fn a_project_or_user_tool_cannot_exceed_the_managed_ceiling() {
    let dir = tempfile::tempdir().unwrap();
    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\nmax_tool_grants = { fs = \"read\", allowed_hosts = [\"api.example.com\"], env = [] }\n",
    );
    for (layer, grant, key) in [
        (LayerKind::Project, "fs = \"read-write\"", "fs"),
        (
            LayerKind::User,
            "allowed_hosts = [\"evil.example.com\"]",
            "allowed_hosts",
        ),
        (
            LayerKind::Project,
            "env = [\"AWS_SECRET_ACCESS_KEY\"]",
            "env",
        ),
    ] {
        let file = write(dir.path(), "layer.toml", &tool("t", &format!("{grant}\n")));
        let err = load(&sources(&[(layer, &file), (LayerKind::Managed, &managed)]))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(&file.display().to_string()), "{err}");
        assert!(err.contains(&format!("plugins.t.{key}")), "{err}");
        assert!(
            err.contains(&format!("the {} layer grants", layer.as_str())),
            "{err}"
        );
        assert!(err.contains("refused"), "{err}");
    }
}

#[test]
fn a_project_cannot_loosen_the_ceiling_or_lift_managed_tools_only() {
    let dir = tempfile::tempdir().unwrap();
    // The project raises its own ceiling and clears managed-tools-only: policy only tightens.
    let project = write(
        dir.path(),
        "project.toml",
        &format!(
            "[policy]\nmanaged_tools_only = false\nmax_tool_grants = {{ fs = \"read-write\" }}\n{}",
            tool("edit", "fs = \"read-write\"\n")
        ),
    );
    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\nmax_tool_grants = { fs = \"read\" }\n",
    );
    let err = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap_err()
    .to_string();
    assert!(err.contains("plugins.edit.fs"), "{err}");

    let managed = write(
        dir.path(),
        "managed.toml",
        &format!(
            "[policy]\nmanaged_tools_only = true\n{}",
            tool("corp-search", "fs = \"read-write\"\n")
        ),
    );
    let project = write(
        dir.path(),
        "project.toml",
        &format!("[policy]\nmanaged_tools_only = false\n{}", tool("edit", "")),
    );
    let err = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap_err()
    .to_string();
    assert!(err.contains("managed tools only"), "{err}");
    assert!(err.contains("project layer"), "{err}");
    // The managed layer's own tool loads, above any ceiling: the operator wrote its grants.
    let loaded = load(&sources(&[(LayerKind::Managed, &managed)])).unwrap();
    assert_eq!(loaded.config.plugins[0].name, "corp-search");
    assert!(loaded.config.policy.managed_tools_only);
}

#[test]
fn a_malformed_ceiling_in_the_managed_file_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let project = write(
        dir.path(),
        "project.toml",
        &tool("t", "fs = \"read-write\"\n"),
    );
    for bad in [
        "[policy]\nmax_tool_grants = { fs = \"all\" }\n",
        "[policy]\nmax_tool_grants = { allowed_hosts = [\"https://x\"] }\n",
        "[policy]\nmax_tool_grants = { network = true }\n",
    ] {
        let managed = write(dir.path(), "managed.toml", bad);
        let err = load(&sources(&[
            (LayerKind::Project, &project),
            (LayerKind::Managed, &managed),
        ]))
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with(&managed.display().to_string()),
            "{bad}: {err}"
        );
    }
}

#[test]
fn the_project_code_is_recorded_and_can_be_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(dir.path(), "user.toml", &tool("mine", "fs = \"read\"\n"));
    let project = write(
        dir.path(),
        "project.toml",
        &format!(
            "[model]\nmax_tokens = 7\n[fileref]\nresolver = \"r.wasm\"\nmax_entries = 9\n[fileref.resolver_config]\nk = \"v\"\n\n{}",
            tool("theirs", "")
        ),
    );
    let layers = sources(&[(LayerKind::User, &user), (LayerKind::Project, &project)]);
    let loaded = load(&layers).unwrap();
    let code = loaded.project_code.clone().unwrap();
    assert_eq!(code.file, project);
    assert_eq!(code.entries.len(), 1);
    assert_eq!(code.entries[0].name, "theirs");
    let resolver = code.resolver.unwrap();
    assert_eq!(resolver.resolver, Some(dir.path().join("r.wasm")));
    assert_eq!(
        resolver.resolver_config.get("k").map(String::as_str),
        Some("v")
    );
    assert_eq!(loaded.config.plugins.len(), 2);
    assert!(loaded.config.fileref.resolver.is_some());

    let without = crate::config::load_without_project_code(&layers).unwrap();
    let names: Vec<&str> = without
        .config
        .plugins
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["mine"]);
    assert_eq!(without.config.fileref.resolver, None);
    assert!(without.config.fileref.resolver_config.is_empty());
    // The project's other settings still apply.
    assert_eq!(without.config.model.max_tokens, 7);
    assert_eq!(without.config.fileref.max_entries, 9);
    assert!(without.project_code.is_some());
    assert!(!without.project_code_loaded);

    // What the project declares is recorded before ceilings clamp it: trust does not depend
    // on policy.
    let project = write(dir.path(), "p2.toml", &tool("big", "timeout_ms = 999999\n"));
    let managed = write(
        dir.path(),
        "m.toml",
        "[policy]\nmax_plugin_timeout_ms = 300\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    assert_eq!(loaded.config.plugins[0].timeout_ms, 300);
    assert_eq!(loaded.project_code.unwrap().entries[0].timeout_ms, 999_999);

    // A project with no plugins and no resolver keys declares no code.
    let plain = write(dir.path(), "plain.toml", "[model]\nmax_tokens = 7\n");
    let loaded = load(&sources(&[(LayerKind::Project, &plain)])).unwrap();
    assert!(loaded.project_code.is_none());
}

#[test]
fn trust_keys_count_only_where_they_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[policy]\ntrusted_paths = [\"/srv/**\"]\nallow_trust = false\nproject_tool_grants = { env = [\"A_TOKEN\"] }\n",
    );
    let project = write(
        dir.path(),
        "project.toml",
        "[policy]\nproject_tool_grants = { env = [\"B_TOKEN\"] }\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &project),
    ]))
    .unwrap();
    let policy = &loaded.config.policy;
    assert!(policy.trusted_paths.is_empty());
    assert!(policy.allow_trust);
    assert_eq!(
        policy.project_tool_grants.as_ref().unwrap().env,
        ["A_TOKEN"]
    );
    let warnings = loaded.warnings.join("\n");
    assert!(
        warnings.contains("`policy.trusted_paths` is only honoured in the managed layer"),
        "{warnings}"
    );
    assert!(
        warnings.contains("`policy.allow_trust` is only honoured in the managed layer"),
        "{warnings}"
    );
    assert!(
        warnings.contains(
            "`policy.project_tool_grants` is only honoured in the user and managed layers"
        ),
        "{warnings}"
    );

    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\ntrusted_paths = [\"/srv/**\"]\nallow_trust = false\nproject_tool_grants = { env = [] }\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::User, &user),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    let policy = &loaded.config.policy;
    assert_eq!(policy.trusted_paths, ["/srv/**"]);
    assert!(!policy.allow_trust);
    // The operator's table replaces the user's.
    assert!(policy.project_tool_grants.as_ref().unwrap().env.is_empty());
}

#[test]
fn the_mode_is_checked_per_file_capped_by_managed_policy_and_a_project_raise_is_project_code() {
    use crate::domain::Mode;
    let dir = tempfile::tempdir().unwrap();
    // An unknown key or mode names the file, line and key.
    let typo = write(dir.path(), "typo.toml", "[tools]\nmod = \"ask\"\n");
    let err = load(&sources(&[(LayerKind::User, &typo)]))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with(&format!("{}:2:", typo.display())), "{err}");
    assert!(err.contains("mod"), "{err}");
    let bad = write(dir.path(), "bad.toml", "[tools]\nmode = \"auto\"\n");
    let err = load(&sources(&[(LayerKind::User, &bad)]))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with(&format!("{}:2:", bad.display())), "{err}");
    assert!(err.contains("auto-edit"), "{err}");

    // The user's mode applies; a project may lower it without it being code.
    let user = write(dir.path(), "user.toml", "[tools]\nmode = \"auto-edit\"\n");
    let lower = write(dir.path(), "lower.toml", "[tools]\nmode = \"read-only\"\n");
    let loaded = load(&sources(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &lower),
    ]))
    .unwrap();
    assert_eq!(loaded.config.tools.mode, Mode::ReadOnly);
    assert!(loaded.project_code.is_none());

    // Raising it above the user's is project code, left out until trusted.
    let raise = write(dir.path(), "raise.toml", "[tools]\nmode = \"full-auto\"\n");
    let layers = sources(&[(LayerKind::User, &user), (LayerKind::Project, &raise)]);
    let loaded = load(&layers).unwrap();
    assert_eq!(loaded.config.tools.mode, Mode::FullAuto);
    assert_eq!(loaded.project_code.unwrap().mode, Some(Mode::FullAuto));
    let without = crate::config::load_without_project_code(&layers).unwrap();
    assert_eq!(without.config.tools.mode, Mode::AutoEdit);
    assert_eq!(without.project_code.unwrap().mode, Some(Mode::FullAuto));
    // Above the default `ask` when the user says nothing.
    let edit = write(dir.path(), "edit.toml", "[tools]\nmode = \"auto-edit\"\n");
    let loaded = load(&sources(&[(LayerKind::Project, &edit)])).unwrap();
    assert_eq!(loaded.project_code.unwrap().mode, Some(Mode::AutoEdit));

    // The managed cap refuses a higher mode from any layer, naming its file and key.
    let managed = write(dir.path(), "m.toml", "[policy]\nmax_mode = \"ask\"\n");
    let err = load(&sources(&[
        (LayerKind::User, &user),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap_err()
    .to_string();
    assert!(err.starts_with(&user.display().to_string()), "{err}");
    assert!(err.contains("key `tools.mode`"), "{err}");
    assert!(err.contains("policy.max_mode = \"ask\""), "{err}");
    assert!(err.contains(&managed.display().to_string()), "{err}");
    let loaded = load(&sources(&[
        (LayerKind::Project, &lower),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    assert_eq!(loaded.config.policy.max_mode, Some(Mode::Ask));

    // `max_mode` outside the managed layer is ignored with a warning.
    let user_cap = write(
        dir.path(),
        "uc.toml",
        "[policy]\nmax_mode = \"read-only\"\n",
    );
    let loaded = load(&sources(&[(LayerKind::User, &user_cap)])).unwrap();
    assert_eq!(loaded.config.policy.max_mode, None);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("policy.max_mode")),
        "{:?}",
        loaded.warnings
    );
}

/// A value clamped to a lowered ceiling names the key and the file that set the lowest ceiling,
/// whichever layer it is; a value over the built-in ceiling says so.
#[test]
fn clamp_warnings_name_the_ceiling_and_the_file_that_set_it() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[policy]\nmax_plugin_timeout_ms = 900\nmax_shell_timeout_s = 30\n",
    );
    let project = write(
        dir.path(),
        "project.toml",
        &format!(
            "[policy]\nmax_plugin_timeout_ms = 400\n[tools.shell]\ntimeout_s = 60\n{}",
            tool("big", "timeout_ms = 5000\nmemory_mb = 999999\n")
        ),
    );
    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\nmax_plugin_timeout_ms = 2000\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    let said = |needle: &str| loaded.warnings.iter().any(|w| w.contains(needle));
    assert!(
        said(&format!(
            "plugin `big`: timeout_ms = 5000 clamped to 400 (the ceiling `policy.max_plugin_timeout_ms` in {})",
            project.display()
        )),
        "{:?}",
        loaded.warnings
    );
    assert!(
        said("memory_mb = 999999 clamped to 4096 (the built-in ceiling)"),
        "{:?}",
        loaded.warnings
    );
    assert!(
        said(&format!(
            "tools.shell.timeout_s = 60 clamped to 30 (the ceiling `policy.max_shell_timeout_s` in {})",
            user.display()
        )),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn registries_come_from_the_user_and_managed_layers_only() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[registries]\ndeadline_s = 40\n[registries.hosts.\"ghcr.io\"]\n[registries.hosts.\"r.example:5000\"]\nusername_env = \"TEAM_USER\"\npassword_env = \"TEAM_TOKEN\"\n",
    );
    let project = write(
        dir.path(),
        "project.toml",
        "[registries]\nidle_timeout_s = 1\n[registries.hosts.\"evil.example\"]\n",
    );
    let managed = write(
        dir.path(),
        "managed.toml",
        "[registries.hosts.\"corp.example\"]\n",
    );
    let loaded = load(&sources(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &project),
        (LayerKind::Managed, &managed),
    ]))
    .unwrap();
    let registries = &loaded.config.registries;
    let hosts: Vec<&str> = registries.hosts.keys().map(String::as_str).collect();
    assert_eq!(hosts, ["corp.example", "ghcr.io", "r.example:5000"]);
    assert_eq!(registries.deadline_s, 40);
    assert_eq!(
        registries.idle_timeout_s,
        crate::config::REGISTRY_IDLE_TIMEOUT_S
    );
    let team = registries.host("R.EXAMPLE:5000").unwrap();
    assert_eq!(
        (team.user_var(), team.password_var()),
        ("TEAM_USER", "TEAM_TOKEN")
    );
    let ghcr = registries.host("ghcr.io").unwrap();
    assert_eq!(
        (ghcr.user_var(), ghcr.password_var()),
        ("WARDEN_REGISTRY_USER", "WARDEN_REGISTRY_PASSWORD")
    );
    assert!(registries.host("evil.example").is_none());
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("`[registries]` cannot be set by a project")),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn registries_entries_are_checked_where_written() {
    let dir = tempfile::tempdir().unwrap();
    for (text, key) in [
        ("[registries.hosts.\"https://x/y\"]\n", "registries.hosts"),
        (
            "[registries.hosts.\"x.example\"]\nusername_env = \"1BAD\"\n",
            "username_env",
        ),
        ("[registries]\ndeadline_s = 0\n", "registries.deadline_s"),
    ] {
        let user = write(dir.path(), "user.toml", text);
        let err = load(&sources(&[(LayerKind::User, &user)]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(key) && err.contains("user.toml"),
            "{text}: {err}"
        );
    }
}

#[test]
fn allow_escalation_is_set_by_the_user_narrowed_by_a_project_and_replaced_by_managed() {
    use crate::config::escalation_kinds;
    use crate::domain::EscalationKind::{Git, Network, Unsandboxed};
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[policy]\nallow_escalation = true\n",
    );
    let project = write(
        dir.path(),
        "project.toml",
        "[policy]\nallow_escalation = [\"git\", \"unsandboxed\"]\n",
    );
    let kinds = |layers: &[(LayerKind, &std::path::PathBuf)]| {
        let loaded = load(&sources(layers)).unwrap();
        escalation_kinds(loaded.config.policy.allow_escalation.as_ref())
    };
    assert_eq!(kinds(&[]), [Network, Git]);
    assert_eq!(
        kinds(&[(LayerKind::User, &user)]),
        [Network, Git, Unsandboxed]
    );
    // A project alone only narrows the default: it cannot add `unsandboxed`.
    assert_eq!(kinds(&[(LayerKind::Project, &project)]), [Git]);
    assert_eq!(
        kinds(&[(LayerKind::User, &user), (LayerKind::Project, &project)]),
        [Git, Unsandboxed]
    );
    let managed = write(
        dir.path(),
        "managed.toml",
        "[policy]\nallow_escalation = false\n",
    );
    assert!(
        kinds(&[
            (LayerKind::User, &user),
            (LayerKind::Project, &project),
            (LayerKind::Managed, &managed)
        ])
        .is_empty()
    );
}

#[test]
fn a_projects_telemetry_is_held_back_until_trusted_and_the_users_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[telemetry]\nendpoint = \"http://collector.example:4318\"\nheaders_env = { authorization = \"OTEL_TOKEN\" }\n";
    let project = write(dir.path(), "project.toml", text);
    // A project's header variable is a grant: refused unless the user lists it.
    let refused = load(&sources(&[(LayerKind::Project, &project)]))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        refused.contains("telemetry.headers_env.authorization")
            && refused.contains("project_tool_grants.env"),
        "{refused}"
    );
    let grants = write(
        dir.path(),
        "grants.toml",
        "[policy.project_tool_grants]\nenv = [\"OTEL_TOKEN\"]\n",
    );
    let layers = sources(&[(LayerKind::User, &grants), (LayerKind::Project, &project)]);
    let loaded = load(&layers).unwrap();
    assert_eq!(
        loaded.config.telemetry.headers_env["authorization"],
        "OTEL_TOKEN"
    );
    let code = loaded.project_code.clone().unwrap();
    assert_eq!(
        code.settings.keys().map(String::as_str).collect::<Vec<_>>(),
        ["telemetry.endpoint", "telemetry.headers_env"]
    );
    assert_eq!(
        loaded.config.telemetry.endpoint.as_deref(),
        Some("http://collector.example:4318")
    );
    let without = crate::config::load_without_project_code(&layers).unwrap();
    assert_eq!(without.config.telemetry.endpoint, None);
    assert!(without.config.telemetry.headers_env.is_empty());

    let user = write(dir.path(), "user.toml", text);
    let mine =
        crate::config::load_without_project_code(&sources(&[(LayerKind::User, &user)])).unwrap();
    assert_eq!(
        mine.config.telemetry.endpoint.as_deref(),
        Some("http://collector.example:4318")
    );
    assert!(mine.project_code.is_none());
}

#[test]
fn only_the_managed_layer_may_refuse_the_other_layers_hooks() {
    // A project asking for managed hooks only is ignored with a warning: the user's own hook
    // stays, rather than becoming a configuration error.
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user.toml");
    let project = dir.path().join("project.toml");
    std::fs::write(
        &user,
        "[[hooks]]\nname = \"mine\"\nevent = \"Stop\"\ncommand = \"true\"\n",
    )
    .unwrap();
    std::fs::write(&project, "[policy]\nmanaged_hooks_only = true\n").unwrap();
    let loaded = load(&sources(&[
        (LayerKind::User, &user),
        (LayerKind::Project, &project),
    ]))
    .unwrap();
    assert_eq!(loaded.config.hooks.len(), 1);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("managed_hooks_only") && w.contains("managed layer")),
        "{:?}",
        loaded.warnings
    );
}
