#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use super::*;

#[test]
fn a_urls_host_is_read_as_the_http_client_reads_it() {
    assert_eq!(
        url_host_port("http://127.0.0.1:1\\@127.0.0.1:2/mcp").as_deref(),
        Some("127.0.0.1:1")
    );
    assert_eq!(
        url_host_port("https://A.example/x").as_deref(),
        Some("a.example")
    );
    assert_eq!(
        url_host_port("http://u:p@127.0.0.1:8080/mcp").as_deref(),
        Some("127.0.0.1:8080")
    );
    assert_eq!(
        url_host_port("http://[::1]:9/mcp").as_deref(),
        Some("[::1]:9")
    );
    assert_eq!(url_host_port("no-scheme"), None);
    assert_eq!(url_host_port("ftp://a.example/"), None);
    // The client reads a backslash as a slash, so does the check.
    let client = reqwest::Url::parse("http://evil:1\\@good:2/").unwrap();
    assert_eq!(client.host_str(), Some("evil"));
}

#[test]
fn url_patterns_match_on_parsed_parts() {
    let p = "http://*.wild.test/*";
    assert!(url_pattern_matches(p, "http://a.wild.test/mcp"));
    assert!(url_pattern_matches(p, "http://A.b.Wild.test:80/x?y=1"));
    for bad in [
        "http://evil/x.wild.test/mcp",
        "http://evil\\x.wild.test/mcp",
        "http://evil:1\\@a.wild.test/mcp",
        "http://u:p@a.wild.test/mcp",
        "http://a.wild.test.evil/mcp",
        "http://a.wild.test:8080/mcp",
        "https://a.wild.test/mcp",
        "http://evil/?a.wild.test/",
        "http://evil/#a.wild.test/",
        "not a url",
    ] {
        assert!(!url_pattern_matches(p, bad), "{bad}");
    }
    assert!(url_pattern_matches(
        "https://mcp.corp:*/a/*",
        "https://mcp.corp:8443/a/b"
    ));
    assert!(!url_pattern_matches(
        "https://mcp.corp/a/*",
        "https://mcp.corp/b"
    ));
    assert!(url_pattern_matches("https://mcp.corp", "https://mcp.corp/"));
    assert!(url_pattern_matches(
        "http://[::1]:9/*",
        "http://[::1]:9/mcp"
    ));
    for bad_pattern in [
        "http://u@mcp.corp/*",
        "http://a\\b/*",
        "ftp://a/*",
        "http:///*",
    ] {
        assert!(
            !url_pattern_matches(bad_pattern, "http://mcp.corp/x"),
            "{bad_pattern}"
        );
    }
}

proptest! {
    /// A host glob never matches a host that is not below its domain, whatever the path,
    /// query, fragment or user part carries.
    #[test]
    fn a_host_glob_never_admits_another_host(
        evil in "[a-z][a-z0-9-]{0,10}",
        sep in prop::sample::select(vec!["/", "\\", "/?", "/#", "/%2F", ":1\\@", "@"]),
        tail in "[a-z0-9./]{0,10}",
    ) {
        let url = format!("http://{evil}{sep}x.wild.test/{tail}");
        let admitted = url_pattern_matches("http://*.wild.test/*", &url);
        let host = url_host_port(&url).unwrap_or_default();
        prop_assert_eq!(admitted, host.ends_with(".wild.test") && sep != "@", "{} -> {}", url, host);
    }

    /// Every name below the domain is admitted on the scheme's port, whatever its path.
    #[test]
    fn a_host_glob_admits_every_name_below_its_domain(
        sub in "[a-z0-9]{1,8}(\\.[a-z0-9]{1,8}){0,2}",
        path in "(/[a-zA-Z0-9._~-]{0,8}){0,3}",
    ) {
        let url = format!("https://{sub}.wild.test{path}");
        prop_assert!(url_pattern_matches("https://*.wild.test/*", &url) || path.is_empty(), "{}", url);
        prop_assert_eq!(url_host_port(&url), Some(format!("{sub}.wild.test")));
    }

    /// A URL's password never survives `without_userinfo`, and the host the client reaches
    /// is still shown; a URL without userinfo is left as written.
    #[test]
    fn userinfo_is_never_shown(
        user in "[a-zA-Z0-9._~-]{0,8}",
        pass in "[a-zA-Z0-9._~!$&'()*+,;=:%-]{6,16}",
        host in "[a-z]{1,8}\\.test",
        path in "(/[a-z0-9]{0,6}){0,2}",
    ) {
        let url = ["https://", user.as_str(), ":", pass.as_str(), "@", host.as_str(), ":4318", path.as_str()].concat();
        let shown = without_userinfo(&url);
        let secret = [":", pass.as_str(), "@"].concat();
        prop_assert!(!shown.contains(&secret), "{}", shown);
        let expected = ["https://REDACTED@", host.as_str(), ":4318", path.as_str()].concat();
        prop_assert_eq!(shown.as_ref(), expected.as_str());
        let clean = ["https://", host.as_str(), ":4318", path.as_str()].concat();
        let kept = without_userinfo(&clean);
        prop_assert_eq!(kept.as_ref(), clean.as_str());
    }
}
