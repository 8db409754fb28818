//! `file://` URIs: a path written as one (every byte but the unreserved ones and `/`
//! percent-encoded) and the path one names (`file:///a/b%20c`, `file://localhost/a`; its query
//! and fragment left out), as MCP resources and editors write them.

/// The `file://` URI of the absolute path `path`.
pub fn uri(path: &str) -> String {
    let mut out = String::from("file://");
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The absolute path `uri` names; `None` for another scheme, another host, or an escape that
/// is malformed or makes no UTF-8 (or a NUL).
pub fn path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    decoded(rest)
}

/// `text` with its `%XX` escapes decoded; `None` when one is malformed or the bytes are not
/// UTF-8 or hold a NUL.
pub fn decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        return None;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_comes_back_from_its_uri_and_other_uris_name_none() {
        let written = uri("/w/my ws/a b%.rs");
        assert_eq!(written, "file:///w/my%20ws/a%20b%25.rs");
        assert_eq!(path(&written).as_deref(), Some("/w/my ws/a b%.rs"));
        assert_eq!(path("file://localhost/a?x#y").as_deref(), Some("/a"));
        assert_eq!(path("file://host/a"), None);
        assert_eq!(path("https://example.com/a"), None);
        assert_eq!(path("file:///a%2"), None);
        assert_eq!(path("file:///a%00b"), None);
    }
}
