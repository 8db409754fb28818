use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use proptest::prelude::*;

use super::*;

#[test]
fn utf8_names_are_one_field() {
    assert_eq!(
        encode(OsStr::new("src/a b.rs")),
        ("src/a b.rs".to_owned(), None)
    );
    assert_eq!(
        encode(OsStr::new("ci\n.yml")),
        ("ci\n.yml".to_owned(), None)
    );
    assert_eq!(decode("src/a.rs", None).ok(), Some("src/a.rs".into()));
}

#[test]
fn other_names_keep_their_bytes_in_hex() {
    let name = OsStr::from_bytes(b".github/workflows/ci\xff.yml");
    let (path, hex) = encode(name);
    assert_eq!(path, ".github/workflows/ci\u{fffd}.yml");
    assert_eq!(
        hex.as_deref(),
        Some("2e6769746875622f776f726b666c6f77732f6369ff2e796d6c")
    );
    assert_eq!(decode(&path, hex.as_deref()).ok().as_deref(), Some(name));
    assert!(decode("x", Some("f")).is_err());
    assert!(decode("x", Some("zz")).is_err());
}

#[test]
fn names_are_shown_escaped() {
    assert_eq!(shown(OsStr::from_bytes(b"ci\xff.yml")), "ci\\xff.yml");
    assert_eq!(shown(OsStr::new("a\nb")), "a\\nb");
    assert_eq!(shown(OsStr::new("\u{1b}[2Jx")), "\\u{1b}[2Jx");
    assert_eq!(shown(OsStr::new("plain.rs")), "plain.rs");
    assert_eq!(
        shown_fields("ci\u{fffd}.yml", Some("6369ff2e796d6c")),
        "ci\\xff.yml"
    );
}

proptest! {
    #[test]
    fn any_byte_name_round_trips_through_json(
        bytes in proptest::collection::vec(any::<u8>(), 0..64)
    ) {
        let name = OsStr::from_bytes(&bytes);
        let (path, hex) = encode(name);
        let json = serde_json::json!({"path": path, "path_hex": hex}).to_string();
        let back: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        let decoded = decode(
            back["path"].as_str().unwrap_or_default(),
            back["path_hex"].as_str(),
        );
        let decoded = decoded.ok();
        prop_assert_eq!(decoded.as_deref(), Some(name));
        let shown = shown(name);
        prop_assert!(!shown.chars().any(crate::domain::escape::is_unsafe));
    }
}
