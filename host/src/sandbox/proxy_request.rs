//! The head of one request to the filtering proxy: `CONNECT host:port` (a tunnel, for TLS) or
//! a plain HTTP request with an absolute URI (`GET http://host[:port]/path`), read from the
//! client and, for plain HTTP, rewritten for the origin server (origin-form target, the `Host`
//! header set to the target, `Connection: close`, no `Proxy-*` headers).

use std::io::Read;

/// Largest request head read (request line and headers).
pub(super) const MAX_HEAD: usize = 16 << 10;

/// What the client asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Target {
    /// `CONNECT` (a tunnel) rather than a plain HTTP request.
    pub(super) tunnel: bool,
    /// The host as written (an IPv6 address keeps its brackets).
    pub(super) host: String,
    pub(super) port: u16,
    /// For plain HTTP: the head to send to the origin server.
    pub(super) head: Vec<u8>,
}

impl Target {
    /// `host:port` as shown in messages.
    pub(super) fn authority(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

/// Read a request head from `client`: the head and the bytes read past it.
pub(super) fn read_head(client: &mut impl Read) -> Result<(Vec<u8>, Vec<u8>), String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = find_end(&buf) {
            let rest = buf.split_off(end);
            return Ok((buf, rest));
        }
        if buf.len() > MAX_HEAD {
            return Err(format!("request head larger than {MAX_HEAD} bytes"));
        }
        match client.read(&mut chunk) {
            Ok(0) => return Err("the connection closed before a request head".into()),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) => return Err(format!("reading the request: {e}")),
        }
    }
}

/// Where the head ends: after the first empty line, whether its line ends are `CRLF` or a bare
/// `LF` (which [`parse`] then refuses, rather than waiting for a `CRLF` that never comes).
fn find_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(3).position(|w| w == b"\n\r\n").map(|i| i + 3);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Refuse what an origin server could read otherwise than the proxy did: a line ended by a
/// bare `LF` (or a `CR` alone), a control character in the request line or in a header
/// (horizontal tab aside, in a value), a header name that is not a token, a folded line.
fn check_head(head: &[u8]) -> Result<(), String> {
    let bare_lf = || "a line ended by a bare LF (not CRLF)".to_owned();
    // Every line but the empty last one, each with its line end.
    let lines = head.strip_suffix(b"\r\n").ok_or_else(bare_lf)?;
    for (i, line) in lines.split_inclusive(|b| *b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r\n").ok_or_else(bare_lf)?;
        if let Some(bad) = line
            .iter()
            .find(|b| (**b < 0x20 && **b != b'\t') || **b == 0x7f)
        {
            return Err(format!(
                "a control character (0x{bad:02x}) in {}",
                if i == 0 {
                    "the request line"
                } else {
                    "a header"
                }
            ));
        }
        if i == 0 {
            if line.contains(&b'\t') {
                return Err("a control character (0x09) in the request line".into());
            }
            continue;
        }
        if line.first().is_some_and(|b| *b == b' ' || *b == b'\t') {
            return Err("a folded header line".into());
        }
        let name = line
            .iter()
            .position(|b| *b == b':')
            .map(|at| &line[..at])
            .ok_or_else(|| "a header line without `:`".to_owned())?;
        if name.is_empty() || !name.iter().all(|b| token_byte(*b)) {
            return Err(format!(
                "a header name that is not a token: {:?}",
                String::from_utf8_lossy(name)
            ));
        }
    }
    Ok(())
}

/// A character of an HTTP token (RFC 9110 `tchar`).
fn token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Parse `head` (as [`read_head`] returns it).
pub(super) fn parse(head: &[u8]) -> Result<Target, String> {
    check_head(head)?;
    let text = std::str::from_utf8(head).map_err(|_| "request head is not UTF-8".to_owned())?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("malformed request line {first:?}"));
    };
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(format!(
            "unsupported protocol {version:?} (HTTP/1.0 and HTTP/1.1 are proxied)"
        ));
    }
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_authority(target)?;
        let port = port.ok_or_else(|| format!("CONNECT {target:?}: no port"))?;
        return Ok(Target {
            tunnel: true,
            host,
            port,
            head: Vec::new(),
        });
    }
    let lower = target.to_ascii_lowercase();
    if lower.starts_with("https://") {
        return Err("an https:// URL must go through CONNECT".into());
    }
    if !lower.starts_with("http://") {
        return Err(format!(
            "{target:?}: only CONNECT and absolute http:// URLs are proxied"
        ));
    }
    let rest = &target["http://".len()..];
    let split = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(split);
    if authority.contains('@') {
        return Err("a URL with a user part is refused".into());
    }
    let (host, port) = split_authority(authority)?;
    let port = port.unwrap_or(80);
    let path = match path {
        "" => "/".to_owned(),
        p if p.starts_with('/') => p.to_owned(),
        p => format!("/{p}"),
    };
    let mut out = format!("{method} {path} {version}\r\n");
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line.split(':').next().unwrap_or_default().trim();
        let dropped = [
            "host",
            "connection",
            "keep-alive",
            "proxy-connection",
            "proxy-authorization",
        ];
        if !dropped.iter().any(|d| name.eq_ignore_ascii_case(d)) {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.push_str(&format!("Host: {authority}\r\nConnection: close\r\n\r\n"));
    Ok(Target {
        tunnel: false,
        host,
        port,
        head: out.into_bytes(),
    })
}

/// `host` and its port from `host[:port]` or `[v6][:port]`.
fn split_authority(text: &str) -> Result<(String, Option<u16>), String> {
    let bad = || format!("{text:?} is not a host and port");
    let (host, port) = if text.starts_with('[') {
        let end = text.find(']').ok_or_else(bad)?;
        let port = match &text[end + 1..] {
            "" => None,
            rest => Some(rest.strip_prefix(':').ok_or_else(bad)?),
        };
        (&text[..=end], port)
    } else {
        match text.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        }
    };
    if host.is_empty() || host.len() > 255 {
        return Err(bad());
    }
    let port = port
        .map(|p| p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(bad))
        .transpose()?;
    Ok((host.to_owned(), port))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::strategy::Strategy;

    use super::*;

    #[test]
    fn connect_and_absolute_urls_are_taken_and_rewritten() {
        let t = parse(b"CONNECT api.github.com:443 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert!(t.tunnel);
        assert_eq!(t.authority(), "api.github.com:443");
        let t = parse(b"CONNECT [::1]:8443 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("[::1]", 8443));
        let t = parse(
            b"GET http://127.0.0.1:8080/a?b=1 HTTP/1.1\r\nHost: evil.example\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n",
        )
        .unwrap();
        assert!(!t.tunnel);
        assert_eq!(t.authority(), "127.0.0.1:8080");
        assert_eq!(
            String::from_utf8(t.head).unwrap(),
            "GET /a?b=1 HTTP/1.1\r\nAccept: */*\r\nHost: 127.0.0.1:8080\r\nConnection: close\r\n\r\n"
        );
        let t = parse(b"HEAD http://example.com HTTP/1.0\r\n\r\n").unwrap();
        assert_eq!(t.port, 80);
        assert!(
            String::from_utf8(t.head)
                .unwrap()
                .starts_with("HEAD / HTTP/1.0\r\n")
        );
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            &b"GET /local HTTP/1.1\r\n\r\n"[..],
            b"GET https://a.com/ HTTP/1.1\r\n\r\n",
            b"GET http://user@a.com/ HTTP/1.1\r\n\r\n",
            b"CONNECT a.com HTTP/1.1\r\n\r\n",
            b"CONNECT a.com:0 HTTP/1.1\r\n\r\n",
            b"GET http://a.com/ SPDY/3\r\n\r\n",
            b"GET  http://a.com/ HTTP/1.1\r\n\r\n",
            b"\xff\r\n\r\n",
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_bare_lf_a_control_character_or_another_version_is_refused_naming_why() {
        for (bad, why) in [
            (
                &b"GET http://a.com/ HTTP/1.1\r\nX-A: a\nHost: evil\r\n\r\n"[..],
                "bare LF",
            ),
            (b"GET http://a.com/ HTTP/1.1\n\n", "bare LF"),
            (b"GET http://a.com/ HTTP/1.1\r\n\n", "bare LF"),
            (
                b"GET http://a.com/ HTTP/1.1\r\nX-A: a\rHost: evil\r\n\r\n",
                "control character (0x0d) in a header",
            ),
            (
                b"GET http://a.com/\x01 HTTP/1.1\r\n\r\n",
                "control character (0x01) in the request line",
            ),
            (b"GET http://a.com/ HTTP/1.2\r\n\r\n", "HTTP/1.2"),
            (
                b"GET http://a.com/ HTTP/1.1\r\nX-A: a\r\n b\r\n\r\n",
                "folded",
            ),
            (
                b"GET http://a.com/ HTTP/1.1\r\nX A: a\r\n\r\n",
                "not a token",
            ),
            (
                b"GET http://a.com/ HTTP/1.1\r\nnocolon\r\n\r\n",
                "without `:`",
            ),
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains(why), "{why}: {err}");
        }
        // A tab inside a header value is allowed.
        assert!(parse(b"GET http://a.com/ HTTP/1.1\r\nX-A: a\tb\r\n\r\n").is_ok());
    }

    #[test]
    fn a_head_ended_by_bare_lfs_is_read_and_then_refused() {
        let mut input: &[u8] = b"GET http://a.com/ HTTP/1.1\nHost: x\n\nrest";
        let (head, rest) = read_head(&mut input).unwrap();
        assert_eq!(rest, b"rest");
        assert!(parse(&head).unwrap_err().contains("bare LF"));
    }

    proptest::proptest! {
        /// Whatever the bytes, parsing ends without a panic; a head it takes is rewritten
        /// into one the origin server reads as the proxy did: CRLF lines, no control
        /// character but tab, one `Host` naming the target.
        #[test]
        fn a_head_taken_is_clean_and_names_one_host(
            raw in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            line in "[A-Za-z-]{1,8}: [ -~\t\r\n\x00\x7f]{0,12}",
        ) {
            let _ = parse(&raw);
            let head = format!("GET http://a.com:81/p HTTP/1.1\r\n{line}\r\nHost: b\r\n\r\n");
            if let Ok(t) = parse(head.as_bytes()) {
                let out = String::from_utf8(t.head).unwrap();
                proptest::prop_assert!(out.ends_with("\r\n\r\n"));
                let body = &out[..out.len() - 4];
                for l in body.split("\r\n") {
                    proptest::prop_assert!(!l.bytes().any(|b| (b < 0x20 && b != b'\t') || b == 0x7f), "{:?}", l);
                }
                let hosts: Vec<&str> = body
                    .split("\r\n")
                    .filter(|l| l.to_ascii_lowercase().starts_with("host:"))
                    .collect();
                proptest::prop_assert_eq!(hosts, vec!["Host: a.com:81"]);
                proptest::prop_assert_eq!((t.host.as_str(), t.port), ("a.com", 81));
            } else {
                // Refused only for a reason the rules name.
                proptest::prop_assert!(
                    line.bytes().any(|b| (b < 0x20 && b != b'\t') || b == 0x7f)
                );
            }
        }

        /// A control character (tab aside) anywhere in a header value is refused.
        #[test]
        fn a_control_character_in_a_value_is_refused(
            before in "[ -~]{0,8}",
            bad in (0u8..0x20).prop_filter("not a tab", |b| *b != b'\t'),
            after in "[ -~]{0,8}",
        ) {
            let mut head = b"GET http://a.com/ HTTP/1.1\r\nX-A: ".to_vec();
            head.extend_from_slice(before.as_bytes());
            head.push(bad);
            head.extend_from_slice(after.as_bytes());
            head.extend_from_slice(b"\r\n\r\n");
            proptest::prop_assert!(parse(&head).is_err());
        }
    }

    #[test]
    fn a_head_is_read_up_to_its_end_and_the_rest_kept() {
        let mut input: &[u8] = b"CONNECT a.com:443 HTTP/1.1\r\n\r\nTLS";
        let (head, rest) = read_head(&mut input).unwrap();
        assert!(head.ends_with(b"\r\n\r\n"));
        assert_eq!(rest, b"TLS");
        let big = vec![b'a'; MAX_HEAD + 10];
        assert!(read_head(&mut big.as_slice()).is_err());
    }
}
