#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use super::*;

const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

#[test]
fn host_port_nested_repository_and_tag() {
    let r = OciReference::parse("oci://127.0.0.1:5000/team/plugins/kw:1.2").unwrap();
    assert_eq!(r.registry, "127.0.0.1:5000");
    assert_eq!(r.host, "127.0.0.1");
    assert_eq!(r.repository, "team/plugins/kw");
    assert_eq!(r.tag.as_deref(), Some("1.2"));
    assert_eq!(r.digest, None);
    assert_eq!(r.last_segment(), "kw");
    assert!(r.is_loopback());
    assert_eq!(r.to_string(), "oci://127.0.0.1:5000/team/plugins/kw:1.2");
}

#[test]
fn digest_with_and_without_tag() {
    let r = OciReference::parse(&format!("oci://ghcr.io/o/kw@sha256:{HEX}")).unwrap();
    assert_eq!(r.tag, None);
    assert_eq!(r.digest_hex(), Some(HEX));
    assert!(!r.is_loopback());
    let r = OciReference::parse(&format!("oci://localhost/kw:v1@sha256:{HEX}")).unwrap();
    assert_eq!(r.tag.as_deref(), Some("v1"));
    assert_eq!(r.digest.as_deref(), Some(format!("sha256:{HEX}").as_str()));
    assert!(r.is_loopback());
    assert_eq!(
        r.without_tag().to_string(),
        format!("oci://localhost/kw@sha256:{HEX}")
    );
}

#[test]
fn ipv6_loopback_with_port() {
    let r = OciReference::parse("oci://[::1]:5000/kw:latest").unwrap();
    assert_eq!(r.host, "::1");
    assert_eq!(r.registry, "[::1]:5000");
    assert!(r.is_loopback());
    assert_eq!(r.to_string(), "oci://[::1]:5000/kw:latest");
}

#[test]
fn bad_forms_are_refused_with_a_reason() {
    let cases = [
        ("docker://h/r:t", "does not start with"),
        ("oci://h", "no repository"),
        ("oci://h/r", "no tag or digest"),
        ("oci://h/R:t", "lowercase"),
        ("oci://h/r//s:t", "lowercase"),
        ("oci://h/-r:t", "lowercase"),
        ("oci://h/r:", "tag ``"),
        ("oci://h/r:.t", "tag `.t`"),
        ("oci://h:0/r:t", "not a port"),
        ("oci://h:99999/r:t", "not a port"),
        ("oci://h:x/r:t", "not a port"),
        ("oci:///r:t", "host is empty"),
        ("oci://h_h/r:t", "not a host name"),
        ("oci://h/r@sha256:abc", "64"),
        ("oci://h/r@md5:abc", "sha256"),
        (
            &format!("oci://h/r@sha256:{}", HEX.to_uppercase()),
            "lowercase hex",
        ),
        ("oci://[::1/r:t", "closing"),
        ("oci://[zz]/r:t", "IPv6"),
    ];
    for (text, why) in cases {
        let err = OciReference::parse(text).unwrap_err();
        assert!(err.contains(why), "{text}: {err}");
    }
}

#[test]
fn remote_names_are_not_loopback() {
    for text in [
        "oci://10.0.0.1/r:t",
        "oci://localhost.example/r:t",
        "oci://0.0.0.0/r:t",
    ] {
        assert!(!OciReference::parse(text).unwrap().is_loopback(), "{text}");
    }
    assert!(
        OciReference::parse("oci://127.8.9.10/r:t")
            .unwrap()
            .is_loopback()
    );
}

#[test]
fn cache_dir_follows_the_state_root() {
    let env = |k: &str| match k {
        "WARDEN_HOME" => Some("/s".to_owned()),
        "HOME" => Some("/h".to_owned()),
        _ => None,
    };
    assert_eq!(oci_cache_dir(&env), Some(PathBuf::from("/s/plugins/oci")));
    let env = |k: &str| match k {
        "WARDEN_HOME" => Some(String::new()),
        "HOME" => Some("/h".to_owned()),
        _ => None,
    };
    assert_eq!(
        oci_cache_dir(&env),
        Some(PathBuf::from("/h/.local/state/warden/plugins/oci"))
    );
    assert_eq!(oci_cache_dir(&|_| None), None);
    assert_eq!(
        cached_component(Path::new("/s/plugins/oci"), HEX),
        PathBuf::from(format!("/s/plugins/oci/sha256/{HEX}.wasm"))
    );
}

fn spec(extra: &str) -> PluginSpec {
    toml::from_str(&format!("name = \"kw\"\nkind = \"interceptor\"\n{extra}")).unwrap()
}

#[test]
fn entry_rules_name_the_key() {
    let file = Path::new("/c/config.toml");
    let source = format!("source = \"oci://h/kw:1@sha256:{HEX}\"\n");
    let pin = format!("sha256 = \"{HEX}\"\n");
    let key = |extra: &str| match check_spec(&spec(extra), file) {
        Err(ConfigError::Invalid { key, message, .. }) => format!("{key}: {message}"),
        other => panic!("{extra}: {other:?}"),
    };
    assert!(key("").starts_with("plugins.kw.path:"));
    assert!(key(&format!("path = \"a.wasm\"\n{source}{pin}")).contains("not both"));
    assert!(key("source = \"oci://h/kw:1\"\n").contains("names a tag, not a digest"));
    assert!(key(&source).starts_with("plugins.kw.sha256:"));
    assert!(key("source = \"https://h/kw\"\n").starts_with("plugins.kw.source:"));
    let cached = check_spec(&spec(&format!("{source}{pin}")), file)
        .unwrap()
        .unwrap();
    assert!(
        cached.ends_with(format!("plugins/oci/sha256/{HEX}.wasm")),
        "{cached:?}"
    );
    assert_eq!(
        check_spec(&spec("path = \"a.wasm\"\n"), file).unwrap(),
        None
    );
}

fn part() -> impl Strategy<Value = String> {
    "[a-z0-9]([a-z0-9._-]{0,6}[a-z0-9])?"
}

proptest! {
    /// Every well-formed reference prints back as it was written and parses to the same parts.
    #[test]
    fn well_formed_references_round_trip(
        host in "[a-z][a-z0-9-]{0,8}(\\.[a-z]{2,4})?",
        port in proptest::option::of(1u16..),
        parts in proptest::collection::vec(part(), 1..4),
        tag in proptest::option::of("[A-Za-z0-9_][A-Za-z0-9_.-]{0,10}"),
        digest in proptest::option::of("[0-9a-f]{64}"),
    ) {
        prop_assume!(tag.is_some() || digest.is_some());
        let registry = match port {
            Some(p) => format!("{host}:{p}"),
            None => host.clone(),
        };
        let mut text = format!("oci://{registry}/{}", parts.join("/"));
        if let Some(tag) = &tag {
            text.push(':');
            text.push_str(tag);
        }
        if let Some(digest) = &digest {
            text.push_str("@sha256:");
            text.push_str(digest);
        }
        let r = OciReference::parse(&text).unwrap();
        prop_assert_eq!(r.to_string(), text);
        prop_assert_eq!(&r.host, &host);
        prop_assert_eq!(&r.repository, &parts.join("/"));
        prop_assert_eq!(r.tag.clone(), tag);
        prop_assert_eq!(r.digest_hex(), digest.as_deref());
    }

    /// Arbitrary text never panics the parser.
    #[test]
    fn any_text_parses_or_is_refused(text in "oci://\\PC{0,40}") {
        let _ = OciReference::parse(&text);
    }
}
