//! URLs read as the HTTP client reads them: one parser (the WHATWG parser of the `url` crate,
//! which `reqwest` uses to connect) for every check of a URL's host, so that no check reads
//! one host where the connection goes to another (`http://a\@b/` is host `a` to the client,
//! as `\` is `/` in an `http(s)` URL).
//!
//! - [`url_host_port`]: the host (and port) an `http(s)` URL is reached at.
//! - [`url_pattern_matches`]: a `policy.allowed_mcp` pattern written as a URL
//!   (`scheme://host-glob[:port]/path-glob`) matched on the URL's parsed parts — scheme, host,
//!   port and path — never as one string, so that a host glob cannot match a path.

use reqwest::Url;

use super::mcp::glob_match;

/// The userinfo of `url` as written (`user:password` of `http://user:password@host/`), if
/// it has one. The authority ends at the first `/`, `?`, `#` or `\\` (which an `http(s)` URL
/// reads as `/`), and its userinfo at the last `@` before that.
pub fn userinfo(url: &str) -> Option<&str> {
    let start = url.find("://").map_or(0, |i| i + 3);
    let rest = &url[start..];
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    rest[..end].rfind('@').map(|at| &rest[..at])
}

/// `url` with its [`userinfo`] replaced by `REDACTED`, for every place a URL is shown or
/// stored (an exit warning, `warden doctor`, a state file); unchanged when it has none.
pub fn without_userinfo(url: &str) -> std::borrow::Cow<'_, str> {
    match userinfo(url) {
        Some(info) => {
            let start = url.find("://").map_or(0, |i| i + 3);
            let after = &url[start + info.len()..];
            std::borrow::Cow::Owned(format!("{}REDACTED{after}", &url[..start]))
        }
        None => std::borrow::Cow::Borrowed(url),
    }
}

/// An `http(s)` URL parsed as the HTTP client parses it; the error says why not.
pub(crate) fn parse_http_url(url: &str) -> Result<Url, String> {
    let parsed = Url::parse(url).map_err(|err| format!("{url:?} is not a URL: {err}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("{url:?}: write an http:// or https:// URL"));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("{url:?}: the URL names no host"));
    }
    Ok(parsed)
}

/// The host an `http(s)` URL is reached at, with its port when one other than the scheme's
/// is written (`host` alone otherwise, as a grant of a host without a port is written), lower
/// case, an IPv6 address in brackets; `None` when it is not such a URL.
pub(crate) fn url_host_port(url: &str) -> Option<String> {
    let parsed = parse_http_url(url).ok()?;
    let host = parsed.host_str()?;
    Some(match parsed.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    })
}

/// Whether `pattern`, written as a URL, is one (it names a scheme).
pub(crate) fn is_url_pattern(pattern: &str) -> bool {
    pattern.contains("://")
}

/// Whether URL pattern `pattern` (`http[s]://host-glob[:port|:*][/path-glob]`) admits `url`:
/// the same scheme; the host matched by the host glob (`*` any run of a host's characters;
/// without case); the port written, any with `:*`, the scheme's own without one; the path
/// (and query) matched by the path glob (`*` any run of characters; `/` when none is
/// written). A URL with a user part, or that does not parse, is never admitted; nor by a
/// pattern that is not well formed (a user part, `\`, `?` or `#` in its authority).
pub(crate) fn url_pattern_matches(pattern: &str, url: &str) -> bool {
    let Ok(url) = parse_http_url(url) else {
        return false;
    };
    if !url.username().is_empty() || url.password().is_some() {
        return false;
    }
    let Some((scheme, rest)) = pattern.split_once("://") else {
        return false;
    };
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return false,
    };
    if scheme != url.scheme() {
        return false;
    }
    let (authority, path_glob) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, "/"),
    };
    if authority.is_empty() || authority.contains(['@', '\\', '?', '#']) {
        return false;
    }
    let (host_glob, port) = split_port_glob(authority);
    let Some(url_port) = url.port_or_known_default() else {
        return false;
    };
    let port_ok = match port {
        None => url_port == default_port,
        Some("*") => true,
        Some(p) => p.parse::<u16>().is_ok_and(|p| p == url_port),
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let mut target_path = url.path().to_owned();
    if let Some(query) = url.query() {
        target_path.push('?');
        target_path.push_str(query);
    }
    port_ok
        && glob_match(&host_glob.to_ascii_lowercase(), host)
        && glob_match(path_glob, &target_path)
}

/// `host-glob` and its port text from `host-glob[:port]` (a bracketed IPv6 address kept
/// whole).
fn split_port_glob(authority: &str) -> (&str, Option<&str>) {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => match authority[end + 1..].strip_prefix(':') {
                Some(port) => (&authority[..=end], Some(port)),
                None => (authority, None),
            },
            None => (authority, None),
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    }
}

#[cfg(test)]
#[path = "url_parts_tests.rs"]
mod tests;
