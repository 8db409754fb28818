use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use super::*;

fn seen(sha: &str) -> Seen {
    Seen {
        sha: sha.to_owned(),
        saved: true,
        mode: 0o644,
    }
}

fn scan_of(files: &[(&str, &str)], partial: bool) -> Scan {
    Scan {
        files: files
            .iter()
            .map(|(p, s)| (std::ffi::OsString::from(*p), seen(s)))
            .collect(),
        dirs: Default::default(),
        partial,
    }
}

#[test]
fn created_changed_and_deleted_files_are_found() {
    let before = scan_of(&[("a.txt", "1"), ("b.txt", "2"), ("same.txt", "3")], false);
    let after = scan_of(
        &[("a.txt", "9"), ("new.txt", "4"), ("same.txt", "3")],
        false,
    );
    let d = diff(&before, &after);
    assert_eq!(
        d,
        vec![
            FileDiff {
                path: "a.txt".into(),
                before: Some(seen("1")),
                after: Some("9".into()),
                after_mode: Some(0o644),
            },
            FileDiff {
                path: "b.txt".into(),
                before: Some(seen("2")),
                after: None,
                after_mode: None,
            },
            FileDiff {
                path: "new.txt".into(),
                before: None,
                after: Some("4".into()),
                after_mode: Some(0o644),
            },
        ]
    );
}

#[test]
fn nothing_changed_is_no_diff() {
    let s = scan_of(&[("a", "1")], false);
    assert!(diff(&s, &s).is_empty());
}

#[test]
fn a_partial_before_scan_never_calls_a_file_created() {
    let before = scan_of(&[("a", "1")], true);
    let after = scan_of(&[("a", "2"), ("z", "3")], false);
    let d = diff(&before, &after);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].path, "a");
}

#[test]
fn a_partial_after_scan_never_calls_a_file_deleted() {
    let before = scan_of(&[("a", "1"), ("z", "3")], false);
    let after = scan_of(&[("a", "1")], true);
    assert!(diff(&before, &after).is_empty());
}

#[test]
fn a_file_over_the_limit_is_not_saved_and_a_bound_makes_the_scan_partial() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.bin"), vec![7u8; 100]).unwrap();
    std::fs::write(dir.path().join("small.txt"), b"hi").unwrap();
    let ws = Workspace::open(
        &[dir.path().to_path_buf()],
        &crate::config::FileRefConfig::default(),
    )
    .unwrap();
    let bounds = Bounds {
        files: 100,
        bytes: 1000,
        file_bytes: 10,
    };
    let mut kept = Vec::new();
    let s = scan(&ws, bounds, &mut |b| {
        kept.push(b.to_vec());
        true
    });
    assert!(!s.partial);
    assert!(!s.files[OsStr::new("big.bin")].saved);
    assert!(s.files[OsStr::new("big.bin")].sha.starts_with("size:100:"));
    assert!(s.files[OsStr::new("small.txt")].saved);
    assert_eq!(kept, vec![b"hi".to_vec()]);

    let tight = Bounds { bytes: 1, ..bounds };
    let s = scan(&ws, tight, &mut |_| true);
    assert!(s.partial);
    assert!(!s.files.contains_key(OsStr::new("small.txt")));
}

#[test]
fn names_of_any_bytes_are_scanned_and_diffed() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(
        &[dir.path().to_path_buf()],
        &crate::config::FileRefConfig::default(),
    )
    .unwrap();
    let bounds = Bounds {
        files: 100,
        bytes: 1000,
        file_bytes: 100,
    };
    let before = scan(&ws, bounds, &mut |_| true);
    let names: [&[u8]; 3] = [b"ci\xff.yml", b"nl\nname", b"esc\x1b[31m"];
    for name in names {
        std::fs::write(dir.path().join(OsStr::from_bytes(name)), b"x").unwrap();
    }
    let after = scan(&ws, bounds, &mut |_| true);
    let changes = diff(&before, &after);
    let mut found: Vec<&[u8]> = changes
        .iter()
        .filter(|d| d.before.is_none())
        .map(|d| d.path.as_bytes())
        .collect();
    found.sort();
    let mut want = names.to_vec();
    want.sort();
    assert_eq!(found, want);
}

#[test]
fn a_mode_change_is_a_change_and_directories_come_and_go() {
    let mut before = scan_of(&[("run.sh", "1")], false);
    let mut after = scan_of(&[("run.sh", "1")], false);
    if let Some(seen) = after.files.get_mut(OsStr::new("run.sh")) {
        seen.mode = 0o755;
    }
    let changes = diff(&before, &after);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].after_mode, Some(0o755));
    before.dirs.insert("gone".into(), 0o700);
    before.dirs.insert("kept".into(), 0o755);
    after.dirs.insert("kept".into(), 0o755);
    after.dirs.insert("made".into(), 0o755);
    let dirs = dir_diff(&before, &after);
    assert_eq!(
        dirs,
        [
            DirDiff {
                path: "gone".into(),
                before: Some(0o700),
                created: false
            },
            DirDiff {
                path: "made".into(),
                before: None,
                created: true
            },
        ]
    );
    after.partial = true;
    assert!(dir_diff(&before, &after).iter().all(|d| d.created));
}
