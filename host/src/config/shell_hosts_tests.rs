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

/// A host name: one to three labels, then a top-level label that is not a number.
fn name() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(label(), 1..3),
        "[a-z]([a-z0-9-]{0,5}[a-z0-9])?",
    )
        .prop_map(|(mut l, top)| {
            l.push(top);
            l.join(".")
        })
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

    /// An address is taken exactly, and no wildcard, however written, matches an address.
    #[test]
    fn an_address_is_exact_and_below_no_wildcard(
        octets in prop::array::uniform4(any::<u8>()),
        domain in name(),
        port in 1u16..,
    ) {
        let addr = std::net::Ipv4Addr::from(octets).to_string();
        prop_assert!(pat(&addr).matches(&addr, port));
        let wild = ["*.", domain.as_str()].concat();
        prop_assert!(!pat(&wild).matches(&addr, port));
        let tail = addr.split_once('.').map(|(_, t)| t.to_owned()).unwrap_or_default();
        let over = ["*.", tail.as_str()].concat();
        prop_assert!(HostPattern::parse(&over).is_err());
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

#[test]
fn no_wildcard_reaches_an_address_and_an_address_is_written_one_way_only() {
    // A wildcard over the last labels of an IPv4 address (`*.0.0.1` matched 127.0.0.1 on any
    // port) is refused where it is written, in `allowed_hosts` and in an escalation alike.
    for bad in ["*.0.0.1", "*.0.1", "*.0.0.1:8080", "*.168.1.1", "*.1.0x7f"] {
        let err = HostPattern::parse(bad).err().unwrap_or_default();
        assert!(err.contains("not an address"), "{bad}: {err:?}");
    }
    // An address is a dotted quad of decimal octets; the other spellings the C resolver takes
    // for the same address (`127.1`, `0x7f.0.0.1`, `017700000001`, `2130706433`) are refused
    // rather than read as names that match nothing, or the address they mean.
    for bad in [
        "127.1",
        "0x7f.0.0.1",
        "0177.0.0.1",
        "2130706433",
        "127.0.0.01",
        "256.0.0.1",
        "1.2.3.4.5",
        "a.b.0x10",
        "example.123",
    ] {
        let err = HostPattern::parse(bad).err().unwrap_or_default();
        assert!(err.contains("address"), "{bad}: {err:?}");
    }
    // And a wildcard written before this rule existed never matches an address a request
    // names, in any spelling.
    let forged = HostPattern {
        wildcard: true,
        name: "0.0.1".into(),
        port: None,
    };
    for host in ["127.0.0.1", "10.0.0.1", "[::ffff:127.0.0.1]"] {
        assert!(!forged.matches(host, 80), "{host}");
    }
    assert!(pat("*.example.com").matches("a.example.com", 80));
    assert!(!pat("*.example.com").matches("127.0.0.1", 80));
    assert!(pat("10.0.0.1:80").matches("10.0.0.1", 80));
}
