use super::*;

fn change(turn: u64, path: &str, before: Option<&str>, after: Option<&str>) -> Change {
    Change {
        turn,
        path: path.to_owned(),
        path_hex: None,
        before: before.map(str::to_owned),
        after: after.map(str::to_owned),
        saved: true,
        command: None,
        partial: false,
        mode: None,
        mode_after: None,
        dir: false,
    }
}

#[test]
fn manifest_round_trips_in_order() -> Result<(), StoreError> {
    let tmp = tempfile::tempdir().map_err(StoreError::io("tempdir", "/tmp"))?;
    let cp = Checkpoints::new(tmp.path());
    assert_eq!(cp.next_turn()?, 1);
    let (sha, kept) = {
        let mut cp = cp.clone();
        cp.save(b"old bytes\n")?
    };
    assert!(kept);
    let a = change(1, "a.txt", None, Some("aa"));
    let b = change(1, "dir/b.txt", Some(&sha), Some("bb"));
    let c = change(2, "a.txt", Some("aa"), Some("cc"));
    for ch in [&a, &b, &c] {
        cp.record(ch)?;
    }
    assert_eq!(cp.turns()?, vec![1, 2]);
    assert_eq!(cp.next_turn()?, 3);
    assert_eq!(cp.changes(1)?, vec![a, b]);
    assert_eq!(cp.changes(2)?, vec![c]);
    assert_eq!(cp.blob(&sha)?, b"old bytes\n");
    cp.forget(2)?;
    assert_eq!(cp.turns()?, vec![1]);
    Ok(())
}

#[test]
fn torn_last_line_is_dropped_and_bad_middle_line_named() -> Result<(), StoreError> {
    let tmp = tempfile::tempdir().map_err(StoreError::io("tempdir", "/tmp"))?;
    let cp = Checkpoints::new(tmp.path());
    cp.record(&change(1, "a", None, Some("x")))?;
    let path = tmp.path().join(CHECKPOINT_DIR).join("turn-00000001.jsonl");
    let mut text = fs::read_to_string(&path).map_err(StoreError::io("read", &path))?;
    text.push_str("{\"turn\":1,\"pa");
    fs::write(&path, &text).map_err(StoreError::io("write", &path))?;
    assert_eq!(cp.changes(1)?.len(), 1);
    text.push_str("\n{}\n");
    fs::write(&path, &text).map_err(StoreError::io("write", &path))?;
    let err = cp
        .changes(1)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("turn-00000001.jsonl") && err.contains('2'),
        "{err}"
    );
    Ok(())
}

#[test]
fn caps_record_not_saved() -> Result<(), StoreError> {
    let tmp = tempfile::tempdir().map_err(StoreError::io("tempdir", "/tmp"))?;
    let mut cp = Checkpoints::with_caps(tmp.path(), 8, 12);
    let (_, kept) = cp.save(b"123456789")?;
    assert!(!kept, "over the per-file cap");
    let (first, kept) = cp.save(b"12345678")?;
    assert!(kept);
    let (_, kept) = cp.save(b"abcdefgh")?;
    assert!(!kept, "over the session cap");
    let (again, kept) = cp.save(b"12345678")?;
    assert!(kept && again == first, "already kept content costs nothing");
    // A fresh handle counts what is on disk.
    let mut cp = Checkpoints::with_caps(tmp.path(), 8, 12);
    assert!(!cp.save(b"zzzzz")?.1);
    assert!(cp.save(b"zzzz")?.1);
    Ok(())
}

#[test]
fn blob_refuses_bad_names_and_damaged_content() -> Result<(), StoreError> {
    let tmp = tempfile::tempdir().map_err(StoreError::io("tempdir", "/tmp"))?;
    let mut cp = Checkpoints::new(tmp.path());
    assert!(cp.blob("../history.jsonl").is_err());
    let (sha, _) = cp.save(b"content")?;
    let path = tmp.path().join(CHECKPOINT_DIR).join("blobs").join(&sha);
    fs::write(&path, b"changed").map_err(StoreError::io("write", &path))?;
    assert!(cp.blob(&sha).is_err());
    Ok(())
}

#[test]
fn a_name_of_any_bytes_round_trips_through_the_manifest() -> Result<(), StoreError> {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let tmp = tempfile::tempdir().map_err(StoreError::io("tempdir", "/tmp"))?;
    let cp = Checkpoints::new(tmp.path());
    let names: [&[u8]; 3] = [b".github/workflows/ci\xff.yml", b"nl\nname", b"esc\x1b[2J"];
    for name in names {
        let (path, path_hex) = crate::domain::file_name::encode(OsStr::from_bytes(name));
        let mut ch = change(1, &path, None, Some("aa"));
        ch.path_hex = path_hex;
        cp.record(&ch)?;
    }
    let back = cp.changes(1)?;
    let decoded: Vec<Vec<u8>> = back
        .iter()
        .filter_map(|c| c.name().ok())
        .map(|n| n.as_bytes().to_vec())
        .collect();
    assert_eq!(decoded, names.map(<[u8]>::to_vec).to_vec());
    assert!(back[0].path_hex.is_some() && back[1].path_hex.is_none());
    assert_eq!(back[0].shown(), ".github/workflows/ci\\xff.yml");
    assert_eq!(back[1].shown(), "nl\\nname");
    assert_eq!(back[2].shown(), "esc\\u{1b}[2J");
    Ok(())
}

#[test]
fn a_manifest_written_before_path_hex_still_loads() -> Result<(), StoreError> {
    let tmp = tempfile::tempdir().map_err(StoreError::io("tempdir", "/tmp"))?;
    let cp = Checkpoints::new(tmp.path());
    cp.record(&change(1, "a.txt", None, Some("aa")))?;
    let manifest = tmp.path().join(CHECKPOINT_DIR).join("turn-00000001.jsonl");
    std::fs::write(
        &manifest,
        "{\"turn\":1,\"path\":\"src/old.rs\",\"after\":\"bb\",\"command\":\"make\"}\n",
    )
    .map_err(StoreError::io("write", &manifest))?;
    let back = cp.changes(1)?;
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].name().ok(), Some("src/old.rs".into()));
    assert_eq!(back[0].path_hex, None);
    // A bad `path_hex` is an error naming the field, never a wrong file.
    let mut bad = back[0].clone();
    bad.path_hex = Some("zz".into());
    assert!(bad.name().is_err_and(|e| e.contains("path_hex")));
    Ok(())
}
