//! `warden plugin fetch` reads every layer the workspace loads: a managed `oci://` entry
//! (the fleet rollout) is fetched like a user's, under the same policy checks, and the
//! workspace then runs with it.

use std::path::PathBuf;

use warden_tests::fixtures;

use crate::plugin_oci::registry::{Registry, have_registry};
use crate::support::{TestEnv, stderr, stdout};

fn cached(env: &TestEnv, sha: &str) -> PathBuf {
    env.state_home()
        .join("plugins/oci/sha256")
        .join(format!("{sha}.wasm"))
}

/// `warden plugin push FILE REF`: its printed digest reference.
fn push(env: &TestEnv, file: &std::path::Path, reference: &str) -> String {
    let out = env.run(&["plugin", "push", &file.to_string_lossy(), reference]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out).trim().to_owned()
}

fn managed_entry(name: &str, source: &str, sha: &str) -> String {
    format!(
        "[[plugins]]\nname = \"{name}\"\nkind = \"interceptor\"\nsource = \"{source}\"\nsha256 = \"{sha}\"\n[plugins.config]\nword = \"deploy\"\ncontext = \"Deploys go through CI.\"\n\n"
    )
}

#[test]
fn fetch_takes_a_managed_oci_entry_and_the_workspace_then_runs() {
    let test = "fetch_takes_a_managed_oci_entry_and_the_workspace_then_runs";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    let wasm = fixtures::keyword_context();
    let sha = warden::plugin::sha256_hex(&std::fs::read(&wasm).unwrap());
    let pinned = push(&env, &wasm, &registry.oci("fleet/kw:1"));
    env.managed_config(&managed_entry("kw", &pinned, &sha));

    // Before: the load error names `plugin fetch`.
    let out = env.run(&["run", "how do I deploy this?"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warden plugin fetch kw"),
        "{}",
        stderr(&out)
    );

    // `plugin fetch` (all entries) takes the managed one.
    let out = env.run(&["plugin", "fetch"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("plugin kw: fetched into"), "{text}");
    assert!(text.contains("managed.toml"), "{text}");
    assert_eq!(
        std::fs::read(cached(&env, &sha)).unwrap(),
        std::fs::read(&wasm).unwrap()
    );
    let out = env.run(&["run", "--json", "how do I deploy this?"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(1 user, 1 system)"),
        "{}",
        stdout(&out)
    );

    // By name, once cached: said so, nothing fetched.
    let out = env.run(&["plugin", "fetch", "kw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("in the cache"), "{}", stdout(&out));
}

/// A managed entry outside the managed `policy.allowed_sources` is refused like any other:
/// its registry is not contacted and nothing is cached.
#[test]
fn fetch_refuses_a_managed_entry_the_policy_refuses() {
    let test = "fetch_refuses_a_managed_entry_the_policy_refuses";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    let wasm = fixtures::keyword_context();
    let sha = warden::plugin::sha256_hex(&std::fs::read(&wasm).unwrap());
    let pinned = push(&env, &wasm, &registry.oci("fleet/kw:1"));
    env.managed_config(&format!(
        "[policy]\nallowed_sources = [\"oci://registry.example.com/*\"]\n\n{}",
        managed_entry("kw", &pinned, &sha)
    ));
    let out = env.run(&["plugin", "fetch", "kw"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("its registry was not contacted"), "{err}");
    assert!(!cached(&env, &sha).exists());
}

/// Under managed `policy.require_signed`, an unsigned component is refused before it is
/// cached, and the refusal names the file and the plugin once.
#[test]
fn fetch_refuses_an_unsigned_managed_component_naming_it_once() {
    let test = "fetch_refuses_an_unsigned_managed_component_naming_it_once";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    let wasm = fixtures::keyword_context();
    let sha = warden::plugin::sha256_hex(&std::fs::read(&wasm).unwrap());
    let pinned = push(&env, &wasm, &registry.oci("fleet/kw:1"));
    env.managed_config(&format!(
        "[policy]\nrequire_signed = true\ntrusted_keys = []\n\n{}",
        managed_entry("kw", &pinned, &sha)
    ));
    let out = env.run(&["plugin", "fetch"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("policy.require_signed"), "{err}");
    assert!(err.contains("nothing was cached"), "{err}");
    assert_eq!(err.matches("plugin kw").count(), 1, "{err}");
    assert!(!err.contains("plugin /"), "{err}");
    assert!(!cached(&env, &sha).exists());
}
