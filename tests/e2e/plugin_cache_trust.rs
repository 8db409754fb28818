//! A project's `oci://` plugin whose cache file is gone: the error names the cache and
//! `warden plugin fetch`, trust never records an unreadable component, and a cache file whose
//! bytes match the pin is the trusted content (provisioning it asks for no new trust).

use std::path::PathBuf;

use warden_tests::fixtures;

use crate::plugin_oci::registry::{Registry, have_registry};
use crate::support::{TestEnv, plugin_entry, stderr, stdout};

fn cached(env: &TestEnv) -> PathBuf {
    let sha = warden::plugin::sha256_hex(&std::fs::read(fixtures::keyword_context()).unwrap());
    env.state_home()
        .join("plugins/oci/sha256")
        .join(format!("{sha}.wasm"))
}

/// Everything under the state root that mentions `needle`.
fn state_files_with(env: &TestEnv, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![env.state_home()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if std::fs::read(&path)
                .is_ok_and(|b| String::from_utf8_lossy(&b).contains(needle))
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_missing_cache_file_names_fetch_and_needs_no_new_trust() {
    let test = "a_missing_cache_file_names_fetch_and_needs_no_new_trust";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    let tag = registry.oci("team/kw:1");
    let out = env.run(&[
        "plugin",
        "push",
        &fixtures::keyword_context().to_string_lossy(),
        &tag,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&[
        "plugin",
        "add",
        &tag,
        "--project",
        "--config",
        "word=deploy",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let file = cached(&env);
    std::fs::remove_file(&file).unwrap();
    let out = env.run(&["run", "deploy?"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    for part in [
        "not in the plugin cache",
        "warden plugin fetch kw",
        &format!("copy the component to {}", file.display()),
    ] {
        assert!(err.contains(part), "missing {part:?} in: {err}");
    }
    assert!(!err.contains("changed since it was trusted"), "{err}");

    // Trusting again records no unreadable state.
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        state_files_with(&env, "unreadable").is_empty(),
        "{:?}",
        state_files_with(&env, "unreadable")
    );

    // Provisioned by hand (the offline way): runs with no new trust.
    std::fs::copy(fixtures::keyword_context(), &file).unwrap();
    let out = env.run(&["run", "deploy?"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Or by `plugin fetch`.
    std::fs::remove_file(&file).unwrap();
    let out = env.run(&["plugin", "fetch", "kw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("fetched"), "{}", stdout(&out));
    assert!(file.is_file());
    let out = env.run(&["run", "deploy?"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A project whose plugin file is missing is not trusted: nothing is recorded.
#[test]
fn trust_refuses_a_component_it_cannot_read() {
    let env = TestEnv::new();
    let missing = env.workspace().join("plugins/kw.wasm");
    env.untrusted_project_config(&plugin_entry(
        "interceptor",
        "kw",
        &missing,
        "",
        &[("word", "x")],
    ));
    let out = env.trust();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for part in ["nothing was trusted", "plugin:kw", "kw.wasm"] {
        assert!(err.contains(part), "missing {part:?} in: {err}");
    }
    assert!(state_files_with(&env, "unreadable").is_empty());
    std::fs::create_dir_all(missing.parent().unwrap()).unwrap();
    std::fs::copy(fixtures::keyword_context(), &missing).unwrap();
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
