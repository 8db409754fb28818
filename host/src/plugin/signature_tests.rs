#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::plugin::component_file::BUILTIN_RESOLVER;
use crate::plugin::metadata::{self, PluginMetadata};

fn pair() -> (SigningKey, TrustedKey) {
    let (secret, public) = generate_key_pair();
    let key = parse_secret_key(secret.as_bytes()).unwrap();
    let trusted = trusted_key(public.trim()).unwrap();
    assert_eq!(key.fingerprint(), trusted.fingerprint());
    (key, trusted)
}

#[test]
fn a_signed_component_verifies_with_its_key() {
    let (key, trusted) = pair();
    let signed = sign(BUILTIN_RESOLVER, &key).unwrap();
    assert_ne!(signed, BUILTIN_RESOLVER);
    let keys = [trusted];
    let found = verify(&signed, &keys).unwrap();
    assert_eq!(found.fingerprint(), key.fingerprint());
    // Signing again replaces the signature: still one section, still valid.
    let again = sign(&signed, &key).unwrap();
    assert_eq!(again.len(), signed.len());
    verify(&again, &keys).unwrap();
}

#[test]
fn an_unsigned_component_is_unsigned() {
    let (_, trusted) = pair();
    assert_eq!(
        verify(BUILTIN_RESOLVER, &[trusted]).unwrap_err(),
        Unverified::Unsigned
    );
}

#[test]
fn another_key_is_refused_and_named() {
    let (key, _) = pair();
    let (_, other) = pair();
    let signed = sign(BUILTIN_RESOLVER, &key).unwrap();
    match verify(&signed, &[other]).unwrap_err() {
        Unverified::OtherKey(Some(id)) => assert_eq!(id, key.fingerprint()),
        other => panic!("{other:?}"),
    }
    // No trusted key at all: still refused.
    assert!(matches!(
        verify(&signed, &[]).unwrap_err(),
        Unverified::OtherKey(_)
    ));
}

#[test]
fn one_byte_changed_anywhere_is_refused() {
    let (key, trusted) = pair();
    let signed = sign(BUILTIN_RESOLVER, &key).unwrap();
    let keys = [trusted];
    let header_end = signature_header(&signed).unwrap().1;
    // Every byte of the header and signature section, and a spread of the content.
    let step = (signed.len() / 4000).max(1);
    let positions =
        (0..header_end.min(signed.len())).chain((header_end..signed.len()).step_by(step));
    let mut content_changes = 0;
    for at in positions.chain([signed.len() - 1]) {
        let mut bytes = signed.clone();
        bytes[at] ^= 0x01;
        let err = verify(&bytes, &keys).map(|_| ()).expect_err(&format!(
            "byte {at} of {} flipped was accepted",
            signed.len()
        ));
        if at >= header_end {
            content_changes += 1;
            assert_eq!(err, Unverified::Tampered, "byte {at}");
        }
    }
    assert!(content_changes > 100);
    // A byte appended or removed.
    let mut longer = signed.clone();
    longer.push(0);
    assert!(verify(&longer, &keys).is_err());
    assert!(verify(&signed[..signed.len() - 1], &keys).is_err());
}

#[test]
fn garbage_and_empty_files_are_refused() {
    let (_, trusted) = pair();
    let keys = [trusted];
    assert!(matches!(
        verify(b"", &keys).unwrap_err(),
        Unverified::Malformed(_)
    ));
    assert!(matches!(
        verify(b"not wasm at all", &keys).unwrap_err(),
        Unverified::Malformed(_)
    ));
}

#[test]
fn strip_removes_the_signature() {
    let (key, trusted) = pair();
    assert_eq!(strip(BUILTIN_RESOLVER).unwrap(), None);
    let signed = sign(BUILTIN_RESOLVER, &key).unwrap();
    let stripped = strip(&signed).unwrap().unwrap();
    assert_eq!(stripped, BUILTIN_RESOLVER);
    assert_eq!(
        verify(&stripped, &[trusted]).unwrap_err(),
        Unverified::Unsigned
    );
}

#[test]
fn keys_parse_and_wrong_ones_are_explained() {
    let (secret, public) = generate_key_pair();
    assert!(
        parse_secret_key(public.as_bytes())
            .unwrap_err()
            .contains("public key")
    );
    assert!(parse_public_key(secret.as_bytes()).is_err());
    assert!(
        parse_public_key(b"ed25519:AAAA")
            .unwrap_err()
            .contains("32 bytes")
    );
    assert!(
        trusted_key("/nonexistent/k.pub")
            .unwrap_err()
            .contains("/nonexistent/k.pub")
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.pub");
    std::fs::write(&file, &public).unwrap();
    let from_file = trusted_key(&file.to_string_lossy()).unwrap();
    assert_eq!(from_file.origin, file.display().to_string());
    assert_eq!(
        from_file.fingerprint(),
        trusted_key(public.trim()).unwrap().fingerprint()
    );
}

#[test]
fn the_load_policy_names_plugin_file_rule_and_managed_file() {
    let (key, trusted) = pair();
    let (_, public) = generate_key_pair();
    let _ = trusted;
    let policy = crate::config::PolicyConfig {
        require_signed: true,
        trusted_keys: vec![public.trim().to_owned()],
        signing_from: Some("/etc/warden/managed.toml".into()),
        ..crate::config::PolicyConfig::default()
    };
    let enforced = SigningPolicy::from_config(&policy).unwrap().unwrap();
    let path = Path::new("/p/guard.wasm");
    let unsigned = enforced
        .check("guard", path, BUILTIN_RESOLVER)
        .unwrap_err()
        .to_string();
    for part in [
        "guard",
        "/p/guard.wasm",
        "`policy.require_signed`",
        "/etc/warden/managed.toml",
        "unsigned",
    ] {
        assert!(unsigned.contains(part), "{part} in {unsigned}");
    }
    let other = enforced
        .check("guard", path, &sign(BUILTIN_RESOLVER, &key).unwrap())
        .unwrap_err()
        .to_string();
    assert!(other.contains("policy.trusted_keys"), "{other}");
    assert!(other.contains("another key"), "{other}");
    // Without `require_signed`, nothing is enforced.
    let off = crate::config::PolicyConfig {
        require_signed: false,
        ..policy
    };
    assert!(SigningPolicy::from_config(&off).unwrap().is_none());
}

#[test]
fn metadata_roundtrips_and_survives_signing() {
    let meta = PluginMetadata {
        name: Some("file-ref".into()),
        version: Some("1.2.3".into()),
        description: Some("Resolves @file references".into()),
        authors: Some("Ada <ada@example.com>".into()),
        source: Some("https://example.com/file-ref".into()),
        licenses: Some("Apache-2.0 OR MIT".into()),
        homepage: Some("https://example.com/".into()),
        revision: Some("abc123".into()),
    };
    let written = metadata::write(BUILTIN_RESOLVER, &meta).unwrap();
    assert_eq!(metadata::read(&written).unwrap(), meta);
    // Fields left out keep their value; a set field replaces it.
    let bumped = metadata::write(
        &written,
        &PluginMetadata {
            version: Some("1.2.4".into()),
            ..PluginMetadata::default()
        },
    )
    .unwrap();
    let read = metadata::read(&bumped).unwrap();
    assert_eq!(read.version.as_deref(), Some("1.2.4"));
    assert_eq!(read.authors, meta.authors);
    // Signing keeps the metadata readable.
    let (key, trusted) = pair();
    let signed = sign(&bumped, &key).unwrap();
    assert_eq!(metadata::read(&signed).unwrap(), read);
    verify(&signed, &[trusted]).unwrap();
    // A bad SPDX expression or URL is refused, naming the field.
    let bad = PluginMetadata {
        licenses: Some("not a license (".into()),
        ..PluginMetadata::default()
    };
    assert!(
        metadata::write(BUILTIN_RESOLVER, &bad)
            .unwrap_err()
            .contains("--licenses")
    );
    let bad = PluginMetadata {
        source: Some("nowhere".into()),
        ..PluginMetadata::default()
    };
    assert!(
        metadata::write(BUILTIN_RESOLVER, &bad)
            .unwrap_err()
            .contains("--source")
    );
}
