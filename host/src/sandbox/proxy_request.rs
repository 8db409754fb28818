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

fn find_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Parse `head` (as [`read_head`] returns it).
pub(super) fn parse(head: &[u8]) -> Result<Target, String> {
    let text = std::str::from_utf8(head).map_err(|_| "request head is not UTF-8".to_owned())?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("malformed request line {first:?}"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(format!("unsupported protocol {version:?}"));
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
    fn a_head_is_read_up_to_its_end_and_the_rest_kept() {
        let mut input: &[u8] = b"CONNECT a.com:443 HTTP/1.1\r\n\r\nTLS";
        let (head, rest) = read_head(&mut input).unwrap();
        assert!(head.ends_with(b"\r\n\r\n"));
        assert_eq!(rest, b"TLS");
        let big = vec![b'a'; MAX_HEAD + 10];
        assert!(read_head(&mut big.as_slice()).is_err());
    }
}
