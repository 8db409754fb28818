//! What `warden trust` has to do with plugin rollout: `plugin update` and `--rollback` of a
//! project entry say that `warden trust` is needed before the next run (a user entry needs
//! none), and `warden trust` refuses a project whose entries managed policy will refuse.

use std::path::{Path, PathBuf};

use warden_tests::fixtures;

use crate::plugin_oci::registry::{Registry, have_registry};
use crate::support::{TestEnv, plugin_entry, stderr, stdout};

/// A copy of the keyword sample packaged as `version` (other bytes per version).
fn build(env: &TestEnv, version: &str) -> PathBuf {
    let file = env.root().join("built").join(format!("kw-{version}.wasm"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let out = env.run(&[
        "plugin",
        "package",
        &fixtures::keyword_context().to_string_lossy(),
        "--version",
        version,
        "-o",
        &file.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    file
}

fn push(env: &TestEnv, file: &Path, reference: &str) {
    let out = env.run(&["plugin", "push", &file.to_string_lossy(), reference]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

fn ok(env: &TestEnv, args: &[&str]) -> String {
    let out = env.run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn update_and_rollback_of_a_project_entry_say_trust_is_needed_next() {
    let test = "update_and_rollback_of_a_project_entry_say_trust_is_needed_next";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    let tag = registry.oci("team/kw:stable");
    push(&env, &build(&env, "1.0.0"), &tag);
    ok(
        &env,
        &["plugin", "add", &tag, "--project", "--config", "word=x"],
    );
    let said = ok(&env, &["trust", "-C", &env.workspace().to_string_lossy()]);
    assert!(said.starts_with("trusted "), "{said}");
    ok(&env, &["run", "hello"]);

    push(&env, &build(&env, "2.0.0"), &tag);
    let said = ok(&env, &["plugin", "update", "kw"]);
    let needed = format!("warden trust -C {}", env.workspace().display());
    assert!(said.contains(&needed), "{said}");
    ok(&env, &["trust", "-C", &env.workspace().to_string_lossy()]);

    let said = ok(&env, &["plugin", "update", "--rollback", "kw"]);
    assert!(said.contains(&needed), "{said}");
    ok(&env, &["trust", "-C", &env.workspace().to_string_lossy()]);
    ok(&env, &["run", "hello"]);

    // A user entry: no trust needed, none mentioned.
    let user_tag = registry.oci("team/mine:stable");
    push(&env, &build(&env, "1.0.0"), &user_tag);
    ok(&env, &["plugin", "add", &user_tag, "--config", "word=y"]);
    push(&env, &build(&env, "2.0.0"), &user_tag);
    let said = ok(&env, &["plugin", "update", "mine"]);
    assert!(said.contains("1.0.0 -> 2.0.0"), "{said}");
    assert!(!said.contains("warden trust"), "{said}");
}

#[test]
fn trust_refuses_a_project_entry_the_policy_refuses() {
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    env.managed_config("[policy]\nallowed_sources = [\"/opt/approved/*\"]\n");
    env.untrusted_project_config(&plugin_entry(
        "interceptor",
        "kw",
        &fixtures::keyword_context(),
        "",
        &[("word", "x")],
    ));
    let out = env.trust();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}\n{}", stdout(&out));
    for part in ["plugin kw", "policy.allowed_sources", "nothing was trusted"] {
        assert!(err.contains(part), "missing {part:?} in: {err}");
    }
    // Nothing recorded: once the policy allows it, trust is still asked for.
    env.managed_config("");
    let out = env.run(&["run", "hello"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));

    // Unsigned under `require_signed`: refused too.
    env.managed_config("[policy]\nrequire_signed = true\ntrusted_keys = []\n");
    let out = env.trust();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("policy.require_signed"), "{err}");
    assert!(err.contains("nothing was trusted"), "{err}");
}
