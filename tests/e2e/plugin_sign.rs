//! Plugin metadata and signatures through the real binary: `plugin package` then `check`,
//! `plugin keygen | sign | verify`, and managed policy (`policy.require_signed`,
//! `policy.trusted_keys`, `policy.allowed_sources`) refusing plugins at load.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use warden_tests::fixtures;

use crate::support::{TestEnv, plugin_entry, stderr, stdout};

/// `warden plugin keygen DIR` in `env`; the (secret, public) key files.
fn keygen(env: &TestEnv, dir: &Path) -> (PathBuf, PathBuf) {
    let out = env.run(&["plugin", "keygen", &dir.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (
        dir.join("warden-signing.key"),
        dir.join("warden-signing.pub"),
    )
}

/// A copy of `src` at `dest`.
fn copy(src: &Path, dest: &Path) -> PathBuf {
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    std::fs::copy(src, dest).unwrap();
    dest.to_owned()
}

fn sign(env: &TestEnv, file: &Path, key: &Path) {
    let out = env.run(&[
        "plugin",
        "sign",
        &file.to_string_lossy(),
        "--key",
        &key.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Flip one bit of the byte in the middle of `file`.
fn flip_middle_byte(file: &Path) {
    let mut bytes = std::fs::read(file).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x01;
    std::fs::write(file, bytes).unwrap();
}

fn kw_entry(path: &Path) -> String {
    plugin_entry("interceptor", "kw", path, "", &[("word", "x")])
}

fn managed_signing(env: &TestEnv, public: &Path, extra: &str) -> PathBuf {
    // The key file named relative to the managed file.
    let rel = public
        .strip_prefix(env.root())
        .expect("key under the test root");
    env.managed_config(&format!(
        "[policy]\nrequire_signed = true\ntrusted_keys = [{:?}]\n{extra}",
        rel.display().to_string()
    ))
}

fn assert_refused(out: &std::process::Output, parts: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for part in parts {
        assert!(err.contains(part), "missing {part:?} in: {err}");
    }
}

#[test]
fn keygen_sign_and_verify_roundtrip() {
    let env = TestEnv::new();
    let keys = env.root().join("keys");
    let (secret, public) = keygen(&env, &keys);
    let mode = std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "secret key mode {mode:o}");
    assert!(
        std::fs::read_to_string(&public)
            .unwrap()
            .starts_with("ed25519:")
    );
    // A second keygen never overwrites the key.
    let before = std::fs::read(&secret).unwrap();
    let again = env.run(&["plugin", "keygen", &keys.to_string_lossy()]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(std::fs::read(&secret).unwrap(), before);

    let file = copy(&fixtures::keyword_context(), &env.root().join("p/kw.wasm"));
    let file_s = file.to_string_lossy().into_owned();
    let public_s = public.to_string_lossy().into_owned();
    // Unsigned.
    let out = env.run(&["plugin", "verify", &file_s, "--key", &public_s]);
    assert_refused(&out, &[&file_s, "unsigned"]);

    // Signed into another file, then in place.
    let other = env.root().join("p/kw-signed.wasm");
    let out = env.run(&[
        "plugin",
        "sign",
        &file_s,
        "--key",
        &secret.to_string_lossy(),
        "-o",
        &other.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(fixtures::keyword_context()).unwrap(),
        "-o leaves FILE as it was"
    );
    sign(&env, &file, &secret);
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(&other).unwrap()
    );
    let out = env.run(&["plugin", "verify", &file_s, "--key", &public_s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("signed by key"), "{}", stdout(&out));

    // Another key.
    let (_, other_public) = keygen(&env, &env.root().join("other-keys"));
    let out = env.run(&[
        "plugin",
        "verify",
        &file_s,
        "--key",
        &other_public.to_string_lossy(),
    ]);
    assert_refused(&out, &[&file_s, "another key"]);

    // Without --key: the managed policy's trusted keys.
    managed_signing(&env, &public, "");
    let out = env.run(&["plugin", "verify", &file_s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("warden-signing.pub"),
        "{}",
        stdout(&out)
    );

    // One byte changed.
    flip_middle_byte(&file);
    let out = env.run(&["plugin", "verify", &file_s]);
    assert_refused(&out, &[&file_s, "tampered"]);
}

#[test]
fn managed_policy_requires_a_trusted_signature_at_load() {
    let env = TestEnv::new();
    let (secret, public) = keygen(&env, &env.root().join("keys"));
    let (other_secret, _) = keygen(&env, &env.root().join("other-keys"));
    let managed = managed_signing(&env, &public, "");
    let managed_s = managed.to_string_lossy().into_owned();
    let file = copy(&fixtures::keyword_context(), &env.root().join("p/kw.wasm"));
    let file_s = file.to_string_lossy().into_owned();
    env.user_config(&kw_entry(&file));

    // Unsigned: refused, naming the plugin, the file, the rule and the managed file.
    let out = env.run(&["run", "x marks the spot"]);
    assert_refused(
        &out,
        &[
            "kw",
            &file_s,
            "policy.require_signed",
            &managed_s,
            "unsigned",
        ],
    );

    // `doctor` does not call the unsigned plugin loadable.
    let out = env.run(&["doctor"]);
    let report = stdout(&out);
    assert!(
        !report.contains("plugin kw (interceptor, user layer) loads"),
        "{report}"
    );
    assert!(
        report
            .lines()
            .any(|l| l.contains("plugin kw (user layer)") && l.contains("unsigned")),
        "{report}"
    );

    // Signed by the trusted key: loads and acts in the turn.
    sign(&env, &file, &secret);
    let out = env.run(&["run", "x marks the spot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("1 system"),
        "the signed plugin added its context: {}",
        stdout(&out)
    );

    // `doctor` reports the policy in force and the plugin under it.
    let out = env.run(&["doctor"]);
    let report = stdout(&out);
    assert!(
        report.contains("signature policy") && report.contains("require_signed = true"),
        "{report}"
    );
    assert!(
        report.contains("ok    plugin kw signed by trusted key"),
        "{report}"
    );

    // One byte changed after signing.
    let tampered = copy(&file, &env.root().join("p/kw-tampered.wasm"));
    flip_middle_byte(&tampered);
    env.user_config(&kw_entry(&tampered));
    let out = env.run(&["run", "x marks the spot"]);
    assert_refused(
        &out,
        &[
            "kw",
            &tampered.to_string_lossy(),
            "policy.trusted_keys",
            &managed_s,
            "tampered",
        ],
    );

    // Signed by a key the policy does not trust.
    let wrong = copy(
        &fixtures::keyword_context(),
        &env.root().join("p/kw-wrong.wasm"),
    );
    sign(&env, &wrong, &other_secret);
    env.user_config(&kw_entry(&wrong));
    let out = env.run(&["run", "x marks the spot"]);
    assert_refused(
        &out,
        &[
            "kw",
            &wrong.to_string_lossy(),
            "policy.trusted_keys",
            &managed_s,
            "another key",
        ],
    );
}

#[test]
fn every_plugin_kind_and_a_custom_resolver_must_be_signed() {
    let env = TestEnv::new();
    let (secret, public) = keygen(&env, &env.root().join("keys"));
    managed_signing(&env, &public, "");
    let cases = [
        ("hook", "counter", fixtures::event_counter()),
        ("tool", "greptool", fixtures::grep_tool()),
    ];
    for (kind, name, src) in cases {
        let file = copy(&src, &env.root().join(format!("p/{name}.wasm")));
        env.user_config(&plugin_entry(kind, name, &file, "", &[]));
        let out = env.run(&["run", "hi"]);
        assert_refused(
            &out,
            &[name, &file.to_string_lossy(), "policy.require_signed"],
        );
        sign(&env, &file, &secret);
        let out = env.run(&["run", "hi"]);
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", stderr(&out));
    }
    let resolver = copy(&fixtures::file_ref(), &env.root().join("p/resolver.wasm"));
    env.user_config(&format!(
        "[fileref]\nresolver = {:?}\n",
        resolver.display().to_string()
    ));
    let out = env.run(&["run", "hi"]);
    assert_refused(
        &out,
        &[
            &resolver.to_string_lossy(),
            "policy.require_signed",
            "unsigned",
        ],
    );
    sign(&env, &resolver, &secret);
    env.write("notes.txt", "hello\n");
    let out = env.run(&["run", "read @notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn allowed_sources_refuses_an_unlisted_local_path() {
    let env = TestEnv::new();
    let listed_dir = env.root().join("allowed");
    let listed = copy(&fixtures::keyword_context(), &listed_dir.join("kw.wasm"));
    let elsewhere = copy(
        &fixtures::keyword_context(),
        &env.root().join("elsewhere/kw.wasm"),
    );
    let canonical_dir = std::fs::canonicalize(&listed_dir).unwrap();
    let managed = env.managed_config(&format!(
        "[policy]\nallowed_sources = [{:?}, \"oci://registry.corp/*\", \"builtin:*\"]\n",
        format!("{}/*", canonical_dir.display())
    ));
    env.user_config(&kw_entry(&elsewhere));
    let out = env.run(&["run", "x marks the spot"]);
    assert_refused(
        &out,
        &[
            "kw",
            &std::fs::canonicalize(&elsewhere).unwrap().to_string_lossy(),
            "policy.allowed_sources",
            &managed.to_string_lossy(),
        ],
    );
    // A path that reaches the listed directory through `..` is matched canonically.
    let indirect = env.root().join("elsewhere/../allowed/kw.wasm");
    env.user_config(&kw_entry(&indirect));
    let out = env.run(&["run", "x marks the spot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("1 system"), "{}", stdout(&out));
    env.user_config(&kw_entry(&listed));
    let out = env.run(&["run", "x marks the spot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // An entry cannot claim a source for a file of its own: `path` and `source` together is a
    // configuration error, before any policy is asked.
    env.user_config(&plugin_entry(
        "interceptor",
        "kw",
        &elsewhere,
        "source = \"builtin:keyword-context\"",
        &[("word", "x")],
    ));
    let out = env.run(&["run", "x marks the spot"]);
    assert_refused(&out, &["plugins.kw.source", "not both"]);
    // A symlink inside the listed directory pointing outside it is refused.
    let link = listed_dir.join("link.wasm");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    env.user_config(&kw_entry(&link));
    let out = env.run(&["run", "x marks the spot"]);
    assert_refused(&out, &["kw", "policy.allowed_sources"]);
}

#[test]
fn a_project_cannot_loosen_the_signing_policy() {
    let env = TestEnv::new();
    let (_, public) = keygen(&env, &env.root().join("keys"));
    let (own_secret, own_public) = keygen(&env, &env.root().join("project-keys"));
    managed_signing(&env, &public, "");
    let own_key = std::fs::read_to_string(&own_public).unwrap();
    let file = copy(&fixtures::keyword_context(), &env.root().join("p/kw.wasm"));
    sign(&env, &file, &own_secret);
    env.untrusted_project_config(&format!(
        "[policy]\nrequire_signed = false\ntrusted_keys = [{:?}]\nallowed_sources = [\"*\"]\n\n{}",
        own_key.trim(),
        kw_entry(&file)
    ));
    env.user_config("[policy]\nrequire_signed = false\n");
    // `warden trust` refuses what the managed policy will refuse; nothing is recorded.
    let out = env.trust();
    assert_refused(
        &out,
        &[
            "kw",
            "nothing was trusted",
            "policy.trusted_keys",
            "another key",
            "`policy.require_signed` is only honoured in the managed layer",
            "`policy.trusted_keys` is only honoured in the managed layer",
        ],
    );
}

#[test]
fn package_then_check_shows_the_metadata_and_signing_comes_after() {
    let env = TestEnv::new();
    let file = copy(&fixtures::keyword_context(), &env.root().join("p/kw.wasm"));
    let out_file = env.root().join("p/kw-packaged.wasm");
    let file_s = file.to_string_lossy().into_owned();
    let out_s = out_file.to_string_lossy().into_owned();
    let out = env.run(&[
        "plugin",
        "package",
        &file_s,
        "--name",
        "keyword-context",
        "--version",
        "1.4.0",
        "--description",
        "Adds context when a keyword appears",
        "--authors",
        "Ada <ada@example.com>",
        "--source",
        "https://example.com/keyword-context",
        "--licenses",
        "Apache-2.0",
        "-o",
        &out_s,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&["plugin", "check", &out_s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for part in [
        "keyword-context",
        "1.4.0",
        "Adds context when a keyword appears",
        "Ada <ada@example.com>",
        "https://example.com/keyword-context",
        "Apache-2.0",
        "signed:      no",
    ] {
        assert!(text.contains(part), "missing {part:?} in: {text}");
    }
    let out = env.run(&["plugin", "check", "--json", &out_s]);
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(json["metadata"]["version"], "1.4.0");
    assert_eq!(json["metadata"]["licenses"], "Apache-2.0");
    assert!(json["signature"].is_null());

    // Signed, then packaged again: the signature is removed with a warning.
    let (secret, public) = keygen(&env, &env.root().join("keys"));
    sign(&env, &out_file, &secret);
    let out = env.run(&["plugin", "check", "--json", &out_s]);
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(json["signature"]["key_id"].is_string(), "{json}");
    let out = env.run(&["plugin", "package", &out_s, "--version", "1.4.1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("sign it again"), "{}", stderr(&out));
    let out = env.run(&[
        "plugin",
        "verify",
        &out_s,
        "--key",
        &public.to_string_lossy(),
    ]);
    assert_refused(&out, &["unsigned"]);
    let out = env.run(&["plugin", "check", &out_s]);
    assert!(stdout(&out).contains("1.4.1"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("Ada <ada@example.com>"),
        "{}",
        stdout(&out)
    );
    // A license that is not an SPDX expression is refused.
    let out = env.run(&[
        "plugin",
        "package",
        &out_s,
        "--licenses",
        "whatever I like (",
    ]);
    assert_refused(&out, &["--licenses"]);
}
