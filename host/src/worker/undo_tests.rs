use super::*;
use crate::store::{Change, sha256_hex};

fn line(path: &str, before: Option<String>, after: Option<String>, saved: bool) -> Change {
    Change {
        turn: 1,
        path: path.to_owned(),
        path_hex: None,
        before,
        after,
        saved,
        command: Some("make all".to_owned()),
        partial: false,
        mode: None,
        mode_after: None,
        dir: false,
    }
}

#[test]
fn a_file_a_command_deleted_is_written_back_and_the_unscanned_rest_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let session = tmp.path().join("session");
    std::fs::create_dir_all(&ws).unwrap();
    let mut store = Checkpoints::new(&session);
    let (sha, kept) = store.save(b"gone\n").unwrap();
    assert!(kept);
    store
        .record(&line("sub/deleted.txt", Some(sha), None, true))
        .unwrap();
    std::fs::write(ws.join("big.bin"), b"now").unwrap();
    store
        .record(&line(
            "big.bin",
            Some("size:99999999:mtime:1".to_owned()),
            Some(sha256_hex(b"now")),
            false,
        ))
        .unwrap();
    store
        .record(&Change {
            path: String::new(),
            partial: true,
            mode: None,
            mode_after: None,
            dir: false,
            ..line("", None, None, false)
        })
        .unwrap();

    let report = undo(&session, &ws, &FileRefConfig::default(), 1, false).unwrap();
    assert_eq!(
        std::fs::read(ws.join("sub/deleted.txt")).unwrap(),
        b"gone\n"
    );
    let done: Vec<(&str, &str, bool)> = report
        .lines
        .iter()
        .map(|l| (l.path.as_str(), l.done.as_str(), l.ok))
        .collect();
    assert_eq!(done[0].0, "(workspace)");
    assert!(
        done[0]
            .1
            .contains("the workspace was too large to scan: changes by the command at `make all`"),
        "{done:?}"
    );
    assert_eq!(done[1].0, "big.bin");
    assert!(
        done[1].1.contains("changed by a command; not saved"),
        "{done:?}"
    );
    assert_eq!(done[2], ("sub/deleted.txt", "restored", true));
    // Nothing left that could be retried: the turn is forgotten.
    assert!(store.turns().unwrap().is_empty());
}
