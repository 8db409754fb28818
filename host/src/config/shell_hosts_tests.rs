#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use super::*;

fn pat(text: &str) -> HostPattern {
    HostPattern::parse(text).unwrap()
}

#[test]
fn patterns_are_names_ports_and_leading_wildcards_only() {
    for ok in [
        "api.github.com",
        "API.GitHub.com.",
        "localhost:8080",
        "127.0.0.1:443",
        "*.pypi.org",
        "*.pypi.org:443",
        "[::1]",
        "[::1]:8080",
    ] {
        assert!(HostPattern::parse(ok).is_ok(), "{ok}");
    }
    for bad in [
        "",
        "*",
        "*.org",
        "**.pypi.org",
        "a.*.org",
        "*pypi.org",
        "https://api.github.com",
        "api.github.com/v1",
        "user@host",
        "host:0",
        "host:08",
        "host:65536",
        "host:",
        "-a.com",
        "a..com",
        "[::1",
        "[nope]:80",
        "*.[::1]",
        "[::1]x",
    ] {
        let err = HostPattern::parse(bad).err();
        assert!(err.is_some(), "{bad} parsed");
        assert!(
            err.unwrap_or_default().contains(&format!("{bad:?}")),
            "{bad}"
        );
    }
    assert_eq!(pat("API.GitHub.com.").to_string(), "api.github.com");
    assert_eq!(pat("[0:0::1]:80").to_string(), "[::1]:80");
}

#[test]
fn a_pattern_matches_its_host_its_port_and_a_wildcard_what_is_below_it() {
    assert!(pat("api.github.com").matches("API.github.com", 443));
    assert!(pat("api.github.com").matches("api.github.com.", 80));
    assert!(!pat("api.github.com").matches("github.com", 443));
    assert!(!pat("api.github.com").matches("evilapi.github.com", 443));
    assert!(pat("127.0.0.1:8080").matches("127.0.0.1", 8080));
    assert!(!pat("127.0.0.1:8080").matches("127.0.0.1", 8081));
    assert!(!pat("localhost").matches("127.0.0.1", 80));
    assert!(pat("*.pypi.org").matches("files.pypi.org", 443));
    assert!(pat("*.pypi.org").matches("a.b.pypi.org", 443));
    assert!(!pat("*.pypi.org").matches("pypi.org", 443));
    assert!(!pat("*.pypi.org").matches("evilpypi.org", 443));
    assert!(!pat("*.pypi.org:443").matches("files.pypi.org", 80));
    assert!(pat("[::1]:80").matches("[::1]", 80));
    assert!(pat("[::1]:80").matches("0:0::1", 80));
    let list = parse_host_patterns(&["a.com".into(), "*.b.com:443".into()]).unwrap();
    assert!(host_allowed(&list, "x.b.com", 443));
    assert!(!host_allowed(&list, "c.com", 443));
    assert!(!host_allowed(&[], "a.com", 443));
}

#[test]
fn within_a_ceiling_means_nothing_more_is_matched() {
    let within = |a: &str, b: &str| pat(a).within(&pat(b));
    assert!(within("a.com", "a.com"));
    assert!(within("a.com:443", "a.com"));
    assert!(!within("a.com", "a.com:443"));
    assert!(within("x.a.com", "*.a.com"));
    assert!(within("*.x.a.com:443", "*.a.com"));
    assert!(within("*.a.com", "*.a.com"));
    assert!(!within("*.a.com", "x.a.com"));
    assert!(!within("a.com", "*.a.com"));
    assert!(!within("*.a.com", "*.x.a.com"));
    assert!(!within("b.com", "a.com"));
}

fn label() -> impl Strategy<Value = String> {
    "[a-z0-9]([a-z0-9-]{0,6}[a-z0-9])?"
}

fn name() -> impl Strategy<Value = String> {
    prop::collection::vec(label(), 2..4).prop_map(|l| l.join("."))
}

proptest! {
    /// The parser never panics, and what it takes it prints back as it will read it again.
    #[test]
    fn any_text_parses_or_is_refused_and_a_parsed_pattern_round_trips(text in "\\PC{0,40}") {
        if let Ok(p) = HostPattern::parse(&text) {
            prop_assert_eq!(HostPattern::parse(&p.to_string()), Ok(p));
        }
    }

    /// A written pattern parses; an exact one matches its own host on any port it allows; a
    /// wildcard matches every name one label below its domain and never the domain itself.
    #[test]
    fn written_patterns_match_what_they_name(
        host in name(),
        sub in label(),
        port in 1u16..,
        other in 1u16..,
    ) {
        let exact = pat(&host);
        prop_assert!(exact.matches(&host.to_ascii_uppercase(), port));
        let pinned = pat(&format!("{host}:{port}"));
        prop_assert!(pinned.matches(&host, port));
        prop_assert_eq!(pinned.matches(&host, other), port == other);
        let wild = pat(&format!("*.{host}"));
        let below = format!("{sub}.{host}");
        prop_assert!(wild.matches(&below, port));
        prop_assert!(!wild.matches(&host, port));
        prop_assert!(pat(&below).within(&wild));
        prop_assert!(!wild.within(&pat(&below)));
        prop_assert!(pinned.within(&exact));
    }

    /// `within` agrees with matching: a host the narrower pattern matches, the ceiling matches.
    #[test]
    fn within_implies_matching(
        a in name(), b in name(), sub in label(), port in 1u16..,
        wa in any::<bool>(), wb in any::<bool>(), pa in any::<bool>(), pb in any::<bool>(),
    ) {
        let write = |n: &str, w: bool, p: bool| {
            format!("{}{n}{}", if w { "*." } else { "" }, if p { format!(":{port}") } else { String::new() })
        };
        let narrow = pat(&write(&a, wa, pa));
        let ceiling = pat(&write(&b, wb, pb));
        let host = if wa { format!("{sub}.{a}") } else { a.clone() };
        if narrow.within(&ceiling) {
            prop_assert!(ceiling.matches(&host, port));
        }
    }
}
