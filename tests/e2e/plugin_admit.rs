//! Managed policy (`policy.require_signed`, `policy.allowed_sources`) at the commands that
//! fetch or write plugin entries: `plugin add`, `update` (and its `--rollback`) and `pin`
//! refuse what the loader would refuse, before anything is contacted, cached or written.

use std::net::TcpListener;
use std::path::{Path, PathBuf};

use warden_tests::fixtures;

use crate::plugin_oci::registry::{Registry, have_registry};
use crate::support::{TestEnv, plugin_entry, stderr, stdout};

fn user_config_path(env: &TestEnv) -> PathBuf {
    env.root().join("config").join("warden").join("config.toml")
}

fn cached(env: &TestEnv, file: &Path) -> PathBuf {
    let sha = warden::plugin::sha256_hex(&std::fs::read(file).unwrap());
    env.state_home()
        .join("plugins/oci/sha256")
        .join(format!("{sha}.wasm"))
}

/// A signing key pair under the test root: (secret, public).
fn keygen(env: &TestEnv) -> (PathBuf, PathBuf) {
    let dir = env.root().join("keys");
    let out = env.run(&["plugin", "keygen", &dir.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (
        dir.join("warden-signing.key"),
        dir.join("warden-signing.pub"),
    )
}

/// A copy of `src` at `name` under the test root, packaged as `version` and (with a key)
/// signed.
fn build(env: &TestEnv, src: &Path, name: &str, version: &str, key: Option<&Path>) -> PathBuf {
    let file = env.root().join("built").join(name);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let file_s = file.to_string_lossy().into_owned();
    let out = env.run(&[
        "plugin",
        "package",
        &src.to_string_lossy(),
        "--version",
        version,
        "-o",
        &file_s,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    if let Some(key) = key {
        let out = env.run(&["plugin", "sign", &file_s, "--key", &key.to_string_lossy()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    file
}

fn push(env: &TestEnv, file: &Path, reference: &str) {
    let out = env.run(&["plugin", "push", &file.to_string_lossy(), reference]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

fn managed(env: &TestEnv, public: &Path, allowed: &[String]) {
    let list: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
    env.managed_config(&format!(
        "[policy]\nrequire_signed = true\ntrusted_keys = [{:?}]\nallowed_sources = [{}]\n",
        public.to_string_lossy(),
        list.join(", ")
    ));
}

fn refused(out: &std::process::Output, parts: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}\n{}", stdout(out));
    for part in parts {
        assert!(err.contains(part), "missing {part:?} in: {err}");
    }
}

/// `add` from a registry outside `policy.allowed_sources` is refused without the registry
/// being contacted; an unsigned component from an allowed one is refused, neither cached nor
/// written; a signed one is added and `list` names its signer.
#[test]
fn add_applies_managed_policy_before_fetching_or_writing() {
    let test = "add_applies_managed_policy_before_fetching_or_writing";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let (secret, public) = keygen(&env);
    let unsigned = build(
        &env,
        &fixtures::keyword_context(),
        "kw-1.wasm",
        "1.0.0",
        None,
    );
    let signed = build(
        &env,
        &fixtures::keyword_context(),
        "kw-1s.wasm",
        "1.0.0",
        Some(&secret),
    );
    push(&env, &unsigned, &registry.oci("team/raw:1"));
    push(&env, &signed, &registry.oci("team/kw:1"));
    env.user_config("# mine\n[model]\nprovider = \"echo\"\n");
    let before = std::fs::read_to_string(user_config_path(&env)).unwrap();
    managed(&env, &public, &[registry.oci("team/*")]);

    // Another registry: a listener that records whether anyone connected.
    let elsewhere = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = elsewhere.local_addr().unwrap().port();
    let outside = format!("oci://127.0.0.1:{port}/team/kw:1");
    let out = env.run(&["plugin", "add", &outside]);
    refused(&out, &[&outside, "policy.allowed_sources", "not contacted"]);
    elsewhere.set_nonblocking(true).unwrap();
    assert!(
        elsewhere.accept().is_err(),
        "the registry outside the allowed sources was contacted"
    );
    // Same registry, repository outside the glob.
    let out = env.run(&["plugin", "add", &registry.oci("other/kw:1")]);
    refused(&out, &["policy.allowed_sources"]);

    let out = env.run(&["plugin", "add", &registry.oci("team/raw:1")]);
    refused(
        &out,
        &["policy.require_signed", "unsigned", "nothing was written"],
    );
    assert_eq!(
        std::fs::read_to_string(user_config_path(&env)).unwrap(),
        before
    );
    assert!(
        !cached(&env, &unsigned).exists(),
        "an unsigned component was cached"
    );

    let out = env.run(&[
        "plugin",
        "add",
        &registry.oci("team/kw:1"),
        "--config",
        "word=x",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("signer"), "{}", stdout(&out));
    let text = std::fs::read_to_string(user_config_path(&env)).unwrap();
    assert!(text.contains("name = \"kw\""), "{text}");
    assert!(cached(&env, &signed).is_file());

    let out = env.run(&["plugin", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = stdout(&out);
    for part in [
        registry.oci("team/kw:1"),
        "1.0.0".to_owned(),
        "signed by key".to_owned(),
    ] {
        assert!(listed.contains(&part), "missing {part:?} in: {listed}");
    }
}

/// `update` refuses an unsigned version under the same tag (config untouched), shows signer
/// and grants for a signed one, and `--rollback` restores the pin it replaced.
#[test]
fn update_applies_managed_policy_and_rolls_back() {
    let test = "update_applies_managed_policy_and_rolls_back";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let (secret, public) = keygen(&env);
    let tag = registry.oci("team/kw:stable");
    let v1 = build(
        &env,
        &fixtures::keyword_context(),
        "kw-1.wasm",
        "1.0.0",
        Some(&secret),
    );
    push(&env, &v1, &tag);
    env.user_config("[model]\nprovider = \"echo\"\n");
    managed(&env, &public, &[registry.oci("team/*")]);
    let out = env.run(&["plugin", "add", &tag, "--config", "word=x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let pinned_v1 = std::fs::read_to_string(user_config_path(&env)).unwrap();

    let v2_unsigned = build(
        &env,
        &fixtures::keyword_context(),
        "kw-2.wasm",
        "2.0.0",
        None,
    );
    push(&env, &v2_unsigned, &tag);
    let out = env.run(&["plugin", "update", "kw"]);
    refused(
        &out,
        &["policy.require_signed", "unsigned", "nothing was changed"],
    );
    assert_eq!(
        std::fs::read_to_string(user_config_path(&env)).unwrap(),
        pinned_v1
    );
    assert!(!cached(&env, &v2_unsigned).exists());

    let v2 = build(
        &env,
        &fixtures::keyword_context(),
        "kw-2s.wasm",
        "2.0.0",
        Some(&secret),
    );
    push(&env, &v2, &tag);
    let out = env.run(&["plugin", "update", "kw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    for part in ["version  1.0.0 -> 2.0.0", "signer", "grants"] {
        assert!(said.contains(part), "missing {part:?} in: {said}");
    }
    let pinned_v2 = std::fs::read_to_string(user_config_path(&env)).unwrap();
    assert_ne!(pinned_v2, pinned_v1);

    let out = env.run(&["plugin", "update", "--rollback", "kw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(user_config_path(&env)).unwrap(),
        pinned_v1
    );
    assert!(stdout(&out).contains("2.0.0 -> 1.0.0"), "{}", stdout(&out));
    // The restored pin runs.
    let out = env.run(&["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// `update` of every entry goes on past a refusal: each refusal is printed with its entry,
/// the admitted update is written, the others are left as they were, and the exit is non-zero.
#[test]
fn update_of_several_entries_goes_on_past_a_refusal() {
    let test = "update_of_several_entries_goes_on_past_a_refusal";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let (secret, public) = keygen(&env);
    env.user_config("[model]\nprovider = \"echo\"\n");
    // `c` is added before the policy limits sources to `team/*`; `a` and `b` are signed.
    let mut v1 = Vec::new();
    // Three versions, so that each pin is its own.
    for (repository, file, version) in [
        ("other/c", "c-1.wasm", "1.0.0"),
        ("team/a", "a-1.wasm", "1.0.1"),
        ("team/b", "b-1.wasm", "1.0.2"),
    ] {
        let built = build(
            &env,
            &fixtures::keyword_context(),
            file,
            version,
            Some(&secret),
        );
        let tag = registry.oci(&format!("{repository}:stable"));
        push(&env, &built, &tag);
        let out = env.run(&["plugin", "add", &tag, "--config", "word=x"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        v1.push(warden::plugin::sha256_hex(&std::fs::read(&built).unwrap()));
    }
    managed(&env, &public, &[registry.oci("team/*")]);
    // New versions: every one unsigned but `b`'s.
    let a2 = build(
        &env,
        &fixtures::keyword_context(),
        "a-2.wasm",
        "2.0.0",
        None,
    );
    push(&env, &a2, &registry.oci("team/a:stable"));
    let b2 = build(
        &env,
        &fixtures::keyword_context(),
        "b-2.wasm",
        "2.0.0",
        Some(&secret),
    );
    push(&env, &b2, &registry.oci("team/b:stable"));
    let b2_sha = warden::plugin::sha256_hex(&std::fs::read(&b2).unwrap());

    let out = env.run(&["plugin", "update"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}\n{}", stdout(&out));
    let line_of = |entry: &str| {
        err.lines()
            .find(|l| {
                l.contains(&format!("plugin {entry}:")) || l.contains(&format!("plugin {entry} ("))
            })
            .unwrap_or_else(|| panic!("no refusal of {entry} in: {err}"))
            .to_owned()
    };
    assert!(line_of("c").contains("policy.allowed_sources"), "{err}");
    assert!(line_of("a").contains("policy.require_signed"), "{err}");
    assert!(!err.contains("plugin b:"), "{err}");
    assert!(
        stdout(&out).contains("version  1.0.2 -> 2.0.0"),
        "{}",
        stdout(&out)
    );

    let text = std::fs::read_to_string(user_config_path(&env)).unwrap();
    assert!(text.contains(&v1[0]), "c changed: {text}");
    assert!(text.contains(&v1[1]), "a changed: {text}");
    assert!(!text.contains(&v1[2]), "b not updated: {text}");
    assert!(text.contains(&b2_sha), "b not updated: {text}");
}

/// `pin` does not write the digest of a file the loader would refuse.
#[test]
fn pin_refuses_an_unsigned_or_unlisted_file() {
    let env = TestEnv::new();
    let (secret, public) = keygen(&env);
    let unsigned = build(&env, &fixtures::keyword_context(), "kw.wasm", "1.0.0", None);
    let allowed_dir = env.root().join("built");
    let config = env.user_config(&plugin_entry(
        "interceptor",
        "kw",
        &unsigned,
        "",
        &[("word", "x")],
    ));
    let before = std::fs::read_to_string(&config).unwrap();
    managed(
        &env,
        &public,
        &[format!(
            "{}/*",
            std::fs::canonicalize(&allowed_dir).unwrap().display()
        )],
    );
    let out = env.run(&["plugin", "pin", "kw"]);
    refused(&out, &["policy.require_signed", "unsigned"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);

    let elsewhere = build(
        &env,
        &fixtures::keyword_context(),
        "kw-s.wasm",
        "1.0.0",
        Some(&secret),
    );
    let moved = env.root().join("elsewhere").join("kw.wasm");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::copy(&elsewhere, &moved).unwrap();
    env.user_config(&plugin_entry(
        "interceptor",
        "kw",
        &moved,
        "",
        &[("word", "x")],
    ));
    let before = std::fs::read_to_string(&config).unwrap();
    let out = env.run(&["plugin", "pin", "kw"]);
    refused(&out, &["policy.allowed_sources"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);

    env.user_config(&plugin_entry(
        "interceptor",
        "kw",
        &elsewhere,
        "",
        &[("word", "x")],
    ));
    let out = env.run(&["plugin", "pin", "kw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// `plugin check` and `plugin verify` read a component by `oci://` reference, caching nothing
/// the policy refuses; a source outside `policy.allowed_sources` is not contacted.
#[test]
fn check_and_verify_accept_an_oci_reference() {
    let test = "check_and_verify_accept_an_oci_reference";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let (secret, public) = keygen(&env);
    let signed = build(
        &env,
        &fixtures::keyword_context(),
        "kw-s.wasm",
        "3.1.0",
        Some(&secret),
    );
    let unsigned = build(&env, &fixtures::grep_tool(), "grep.wasm", "0.4.0", None);
    push(&env, &signed, &registry.oci("team/kw:3"));
    push(&env, &unsigned, &registry.oci("team/grep:0"));

    let out = env.run(&["plugin", "check", &registry.oci("team/kw:3")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    for part in ["interceptor", "3.1.0", "signed:      yes"] {
        assert!(said.contains(part), "missing {part:?} in: {said}");
    }
    let out = env.run(&["plugin", "check", &registry.oci("team/grep:0")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("search_text"), "{}", stdout(&out));
    let out = env.run(&[
        "plugin",
        "verify",
        &registry.oci("team/kw:3"),
        "--key",
        &public.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("signed by key"), "{}", stdout(&out));
    let out = env.run(&[
        "plugin",
        "verify",
        &registry.oci("team/grep:0"),
        "--key",
        &public.to_string_lossy(),
    ]);
    refused(&out, &["unsigned"]);

    // Under managed policy: the unsigned one is inspected but not cached; another registry is
    // not contacted.
    managed(&env, &public, &[registry.oci("team/*")]);
    let out = env.run(&["plugin", "check", &registry.oci("team/grep:0")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!cached(&env, &unsigned).exists());
    let elsewhere = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = elsewhere.local_addr().unwrap().port();
    let outside = format!("oci://127.0.0.1:{port}/team/kw:1");
    let out = env.run(&["plugin", "check", &outside]);
    refused(&out, &["policy.allowed_sources", "not contacted"]);
    elsewhere.set_nonblocking(true).unwrap();
    assert!(elsewhere.accept().is_err(), "contacted");
}
