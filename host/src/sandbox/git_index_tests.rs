#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use super::*;

/// An index of `paths` (sorted and unique, as git keeps them) in `version`, SHA-1 ids; with
/// `extended`, every entry of a version 3 or 4 index carries the extended flag.
fn write_index(paths: &[String], version: u32, extended: bool) -> Vec<u8> {
    let mut out = b"DIRC".to_vec();
    out.extend_from_slice(&version.to_be_bytes());
    out.extend_from_slice(&u32::try_from(paths.len()).unwrap().to_be_bytes());
    let mut previous: &[u8] = b"";
    for path in paths {
        let start = out.len();
        out.extend_from_slice(&[7u8; STAT_BYTES]);
        out.extend_from_slice(&[0xab; 20]);
        let ext = extended && version >= 3;
        let len = u16::try_from(path.len().min(0xfff)).unwrap();
        let flags = len | if ext { 0x4000 } else { 0 };
        out.extend_from_slice(&flags.to_be_bytes());
        if ext {
            out.extend_from_slice(&0x2000u16.to_be_bytes());
        }
        let bytes = path.as_bytes();
        if version == 4 {
            let common = previous
                .iter()
                .zip(bytes)
                .take_while(|(a, b)| a == b)
                .count();
            out.extend_from_slice(&varint(previous.len() - common));
            out.extend_from_slice(&bytes[common..]);
            out.push(0);
        } else {
            out.extend_from_slice(bytes);
            let used = out.len() - start;
            let total = (used + 8) & !7;
            out.resize(start + total, 0);
        }
        previous = bytes;
    }
    out.extend_from_slice(b"TREE\0\0\0\0");
    out
}

fn varint(mut value: usize) -> Vec<u8> {
    let mut bytes = vec![u8::try_from(value & 0x7f).unwrap()];
    while value >= 0x80 {
        value = (value >> 7) - 1;
        bytes.push(0x80 | u8::try_from(value & 0x7f).unwrap());
    }
    bytes.reverse();
    bytes
}

#[test]
fn paths_of_each_version_are_read() {
    let paths: Vec<String> = ["a", ".env", "src/keys/server.pem", "src/main.rs"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    for (version, extended) in [(2, false), (3, true), (3, false), (4, false), (4, true)] {
        let index = write_index(&paths, version, extended);
        assert_eq!(tracked_paths(&index, 20).unwrap(), paths, "v{version}");
    }
}

#[test]
fn a_damaged_index_is_an_error_naming_where() {
    assert!(tracked_paths(b"XXXX", 20).unwrap_err().contains("DIRC"));
    let mut index = write_index(&["a".to_owned()], 5, false);
    assert!(tracked_paths(&index, 20).unwrap_err().contains("version 5"));
    index = write_index(&["abc".to_owned(), "abd".to_owned()], 2, false);
    index.truncate(70);
    assert!(tracked_paths(&index, 20).unwrap_err().contains("entry 0"));
    let mut v2 = write_index(&["a".to_owned()], 2, false);
    v2[12 + 60] |= 0x40;
    assert!(tracked_paths(&v2, 20).unwrap_err().contains("extended"));
}

/// The index git itself writes, each version, read back (where git is installed).
#[test]
fn an_index_written_by_git_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .current_dir(dir.path())
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
    };
    if git(&["init", "-q"]).is_err() {
        return;
    }
    std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
    for f in [
        ".env",
        "a/b/long-name-for-prefix-one.txt",
        "a/b/long-name-for-prefix-two.txt",
        "z",
    ] {
        std::fs::write(dir.path().join(f), "x").unwrap();
    }
    git(&["add", "-A"]).unwrap();
    let expected = vec![
        ".env".to_owned(),
        "a/b/long-name-for-prefix-one.txt".to_owned(),
        "a/b/long-name-for-prefix-two.txt".to_owned(),
        "z".to_owned(),
    ];
    for version in ["2", "3", "4"] {
        git(&["update-index", "--index-version", version]).unwrap();
        let index = std::fs::read(dir.path().join(".git/index")).unwrap();
        assert_eq!(tracked_paths(&index, 20).unwrap(), expected, "v{version}");
    }
    // An entry with the extended flag (intent to add) in version 3.
    std::fs::write(dir.path().join("new.txt"), "x").unwrap();
    git(&["update-index", "--index-version", "3"]).unwrap();
    git(&["add", "-N", "new.txt"]).unwrap();
    let index = std::fs::read(dir.path().join(".git/index")).unwrap();
    assert!(
        tracked_paths(&index, 20)
            .unwrap()
            .contains(&"new.txt".to_owned())
    );
}

proptest! {
    /// What is written is read back, in every version.
    #[test]
    fn written_paths_are_read_back(
        set in prop::collection::btree_set("[a-z.]{1,6}(/[a-zA-Z0-9._-]{1,12}){0,3}", 0..30),
        version in 2u32..=4,
        extended in any::<bool>(),
    ) {
        let paths: Vec<String> = set.into_iter().collect();
        let index = write_index(&paths, version, extended);
        prop_assert_eq!(tracked_paths(&index, 20).unwrap(), paths);
    }

    /// Any bytes: an answer or an error, never a panic or a hang.
    #[test]
    fn any_bytes_end_in_an_answer(
        body in prop::collection::vec(any::<u8>(), 0..400),
        version in 2u32..=4,
        count in 0u32..50,
    ) {
        let mut index = b"DIRC".to_vec();
        index.extend_from_slice(&version.to_be_bytes());
        index.extend_from_slice(&count.to_be_bytes());
        index.extend_from_slice(&body);
        let _ = tracked_paths(&index, 20);
        let _ = tracked_paths(&body, 32);
    }
}
