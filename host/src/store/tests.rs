//! Tests of the store through its public API on real files in temp directories.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::checksum;
use super::*;
use crate::domain::{Item, Source};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn home() -> Result<(tempfile::TempDir, Home), std::io::Error> {
    let dir = tempfile::tempdir()?;
    let home = Home::new(dir.path().join("state"));
    Ok((dir, home))
}

fn group(n: usize, tag: &str) -> Vec<(Source, Item)> {
    (0..n)
        .map(|i| (Source::User, Item::user(format!("{tag}-{i}"))))
        .collect()
}

/// A session with `groups` groups of two items; returns the writer dropped and the file bytes.
fn session_with(home: &Home, id: &str, groups: usize) -> Result<Vec<u8>, StoreError> {
    let mut w = SessionWriter::create(home, Some(id), Path::new("/ws"))?;
    for g in 0..groups {
        w.commit(&group(2, &format!("g{g}")))?;
    }
    let path = w.path().to_owned();
    drop(w);
    fs::read(&path).map_err(|e| StoreError::Io {
        op: "read",
        path,
        source: e,
    })
}

fn append(home: &Home, id: &str, bytes: &[u8]) -> TestResult {
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(home.history_path(id)?)?;
    f.write_all(bytes)?;
    Ok(())
}

/// `bytes` with a checksum on every complete line that is a JSON object, as the writer leaves
/// the records of a group it did not finish.
fn sealed(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut lines = bytes.split(|&b| b == b'\n').peekable();
    while let Some(line) = lines.next() {
        let mut line = line.to_vec();
        let complete = lines.peek().is_some();
        if complete && serde_json::from_slice::<serde_json::Value>(&line).is_ok() {
            checksum::seal(&mut line);
        }
        out.extend_from_slice(&line);
        if complete {
            out.push(b'\n');
        }
    }
    out
}

fn texts(records: &[Record]) -> Vec<String> {
    records.iter().map(|r| r.item.text().to_owned()).collect()
}

#[test]
fn commits_round_trip_through_load_and_reopen() -> TestResult {
    let (_d, home) = home()?;
    let mut w = SessionWriter::create(&home, None, Path::new("/ws"))?;
    let id = w.id().to_owned();
    let r1 = w.commit(&group(2, "a"))?;
    let r2 = w.commit(&[(Source::Plugin("p".into()), Item::system("s"))])?;
    assert_eq!((r1.group, r1.seqs.clone()), (1, 1..3));
    assert_eq!((r2.group, r2.seqs.clone()), (2, 3..4));
    let written = w.records().to_vec();
    drop(w);

    let loaded = load(&home, &id)?;
    assert_eq!(loaded.records, written);
    assert!(loaded.warnings.is_empty());
    assert_eq!(loaded.header.workspace, Path::new("/ws"));
    assert_eq!(loaded.header.session, id);
    assert_eq!(loaded.records[2].source, Source::Plugin("p".into()));

    let mut w = SessionWriter::open(&home, &id)?;
    assert_eq!(w.records(), written.as_slice());
    let r3 = w.commit(&group(1, "b"))?;
    assert_eq!((r3.group, r3.seqs), (3, 4..5));
    assert_eq!(
        w.items().map(Item::text).collect::<Vec<_>>(),
        ["a-0", "a-1", "s", "b-0"]
    );
    Ok(())
}

#[test]
fn header_and_records_have_the_documented_shape() -> TestResult {
    let (_d, home) = home()?;
    let bytes = session_with(&home, "s1", 1)?;
    let text = String::from_utf8(bytes)?;
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(lines[0]["format"], "warden-history");
    assert_eq!(lines[0]["version"], 1);
    assert_eq!(lines[0]["session"], "s1");
    assert_eq!(lines[0]["workspace"], "/ws");
    assert!(
        lines[0]["created"]
            .as_str()
            .is_some_and(|c| c.ends_with('Z'))
    );
    assert_eq!(lines[1]["seq"], 1);
    assert_eq!(lines[1]["group"], 1);
    assert_eq!(lines[1]["source"], "user");
    assert_eq!(
        lines[1]["item"],
        serde_json::json!({"role": "user", "text": "g0-0"})
    );
    assert!(lines[1].get("end").is_none());
    assert_eq!(lines[2]["end"], true);
    Ok(())
}

#[test]
fn empty_commit_writes_nothing() -> TestResult {
    let (_d, home) = home()?;
    let before = session_with(&home, "s1", 1)?;
    let mut w = SessionWriter::open(&home, "s1")?;
    let r = w.commit(&[])?;
    assert!(r.is_empty());
    assert_eq!(fs::read(w.path())?, before);
    Ok(())
}

/// Each torn tail is dropped by `load` (file untouched) and cut off by `open`, after which new
/// groups follow the last complete one.
#[test]
fn torn_tails_are_dropped_and_truncated() -> TestResult {
    let tails: [(&str, &[u8], usize); 5] = [
        ("partial line", br#"{"seq":5,"group":3,"sou"#, 0),
        (
            "group without end marker",
            b"{\"seq\":5,\"group\":3,\"source\":\"user\",\"ts\":\"2025-01-01T00:00:00Z\",\"item\":{\"role\":\"user\",\"text\":\"x\"}}\n",
            1,
        ),
        (
            "group without end marker, then a partial line",
            b"{\"seq\":5,\"group\":3,\"source\":\"user\",\"ts\":\"2025-01-01T00:00:00Z\",\"item\":{\"role\":\"user\",\"text\":\"x\"}}\n{\"seq\":6,",
            1,
        ),
        ("zeroed block", &[0u8; 64], 0),
        (
            "unreadable line, then records without end marker (power loss)",
            b"\0\0garbage\n{\"seq\":6,\"group\":3,\"source\":\"user\",\"ts\":\"2025-01-01T00:00:00Z\",\"item\":{\"role\":\"user\",\"text\":\"x\"}}\n",
            0,
        ),
    ];
    for (what, tail, dropped_records) in tails {
        let tail = &sealed(tail);
        let (_d, home) = home()?;
        let good = session_with(&home, "s1", 2)?;
        append(&home, "s1", tail)?;
        let path = home.history_path("s1")?;
        let torn = fs::read(&path)?;

        let loaded = load(&home, "s1")?;
        assert_eq!(loaded.records.len(), 4, "{what}");
        assert_eq!(
            loaded.warnings,
            vec![LoadWarning::TornTail {
                path: path.clone(),
                line: 6,
                records: dropped_records,
                bytes: tail.len() as u64,
            }],
            "{what}"
        );
        assert_eq!(
            fs::read(&path)?,
            torn,
            "{what}: load must not change the file"
        );

        let mut w = SessionWriter::open(&home, "s1")?;
        assert_eq!(w.warnings().len(), 1, "{what}");
        assert_eq!(
            fs::read(&path)?,
            good,
            "{what}: open must cut back to the last group"
        );
        let r = w.commit(&group(1, "after"))?;
        assert_eq!((r.group, r.seqs), (3, 5..6), "{what}");
        drop(w);
        let loaded = load(&home, "s1")?;
        assert!(loaded.warnings.is_empty(), "{what}");
        assert_eq!(
            texts(&loaded.records),
            ["g0-0", "g0-1", "g1-0", "g1-1", "after-0"],
            "{what}"
        );
    }
    Ok(())
}

#[test]
fn garbage_in_the_middle_is_an_error_with_its_line_and_nothing_changes() -> TestResult {
    let (_d, home) = home()?;
    session_with(&home, "s1", 3)?;
    let path = home.history_path("s1")?;
    let text = fs::read_to_string(&path)?;
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(3, "this is not json");
    let corrupt = format!("{}\n", lines.join("\n"));
    fs::write(&path, &corrupt)?;

    for err in [
        load(&home, "s1").err(),
        SessionWriter::open(&home, "s1").err(),
    ] {
        let msg = err.as_ref().map(ToString::to_string).unwrap_or_default();
        assert!(
            matches!(err, Some(StoreError::Corrupt { line: 4, .. })),
            "{msg}"
        );
        assert!(msg.contains(&format!("{}:4:", path.display())), "{msg}");
    }
    assert_eq!(fs::read_to_string(&path)?, corrupt);
    Ok(())
}

#[test]
fn framing_errors_are_corruption() -> TestResult {
    let (_d, home) = home()?;
    session_with(&home, "s1", 3)?;
    let path = home.history_path("s1")?;
    let text = fs::read_to_string(&path)?;
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(3); // first record of group 2: seq 3 is missing
    fs::write(&path, format!("{}\n", lines.join("\n")))?;
    let msg = load(&home, "s1")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        msg.contains(":4:") && msg.contains("seq 4 where 3 was expected"),
        "{msg}"
    );
    Ok(())
}

#[test]
fn unknown_header_is_an_error_naming_line_one() -> TestResult {
    let (_d, home) = home()?;
    let cases = [
        (r#"{"format":"warden-history","version":2}"#, "version 2"),
        (r#"{"format":"other","version":1}"#, "\"other\""),
        ("not a header", "not a warden history header"),
        ("", "empty"),
    ];
    for (header, expected) in cases {
        fs::remove_dir_all(home.sessions_dir()).ok();
        session_with(&home, "s1", 1)?;
        let path = home.history_path("s1")?;
        let text = fs::read_to_string(&path)?;
        let rest = text.split_once('\n').map_or("", |(_, r)| r);
        let content = if header.is_empty() {
            String::new()
        } else {
            format!("{header}\n{rest}")
        };
        fs::write(&path, &content)?;
        let msg = SessionWriter::open(&home, "s1")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(msg.contains(&format!("{}:1:", path.display())), "{msg}");
        assert!(msg.contains(expected), "{msg}");
        assert_eq!(fs::read_to_string(&path)?, content);
    }
    Ok(())
}

#[test]
fn one_writer_per_session() -> TestResult {
    let (_d, home) = home()?;
    let w = SessionWriter::create(&home, Some("s1"), Path::new("/ws"))?;
    let err = SessionWriter::open(&home, "s1").err();
    let msg = err.as_ref().map(ToString::to_string).unwrap_or_default();
    assert!(matches!(err, Some(StoreError::Locked { .. })), "{msg}");
    assert!(msg.contains("\"s1\"") && msg.contains("another warden process is writing it"));
    assert!(matches!(
        SessionWriter::create(&home, Some("s1"), Path::new("/ws")),
        Err(StoreError::Exists { .. })
    ));
    assert!(load(&home, "s1").is_ok(), "readers take no lock");
    drop(w);
    assert!(SessionWriter::open(&home, "s1").is_ok());
    Ok(())
}

#[test]
fn ids_and_missing_sessions_give_clear_errors() -> TestResult {
    let (_d, home) = home()?;
    assert!(matches!(
        SessionWriter::create(&home, Some("../evil"), Path::new("/ws")),
        Err(StoreError::InvalidId { .. })
    ));
    assert!(matches!(
        load(&home, "nope"),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        SessionWriter::open(&home, "nope"),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        Inbox::push(&home, "nope", "x"),
        Err(StoreError::NotFound { .. })
    ));
    let w = SessionWriter::open_or_create(&home, "fresh", Path::new("/ws"))?;
    assert_eq!(w.id(), "fresh");
    Ok(())
}

#[test]
fn notifications_drain_in_arrival_order_exactly_once() -> TestResult {
    let (_d, home) = home()?;
    let mut w = SessionWriter::create(&home, Some("s1"), Path::new("/ws"))?;
    let pushed: Vec<Notification> = ["one", "two", "three"]
        .iter()
        .map(|t| Inbox::push(&home, "s1", t))
        .collect::<Result<_, _>>()?;
    assert_eq!(w.pending_notifications()?, pushed);

    let committed = w.commit_notifications()?;
    assert_eq!(committed, pushed);
    assert_eq!(
        w.items().map(Item::text).collect::<Vec<_>>(),
        [
            "[Notification] one (not a blocking request)",
            "[Notification] two (not a blocking request)",
            "[Notification] three (not a blocking request)",
        ]
    );
    assert!(w.records().iter().all(|r| r.source == Source::Notify));
    assert_eq!(
        w.records()[0].origin.as_deref(),
        Some(pushed[0].id.as_str())
    );
    assert!(w.pending_notifications()?.is_empty());
    assert_eq!(fs::read_dir(home.inbox_dir("s1")?)?.count(), 0);
    assert!(w.commit_notifications()?.is_empty());
    assert_eq!(w.records().len(), 3);
    Ok(())
}

/// A crash between the commit and the deletion of the inbox file leaves the file behind; the
/// notification must not be committed a second time.
#[test]
fn a_notification_left_in_the_inbox_after_its_commit_is_not_committed_again() -> TestResult {
    let (_d, home) = home()?;
    let mut w = SessionWriter::create(&home, Some("s1"), Path::new("/ws"))?;
    let note = Inbox::push(&home, "s1", "hello")?;
    let file = home.inbox_dir("s1")?.join(format!("{}.json", note.id));
    let saved = fs::read(&file)?;
    w.commit_entries(&[note.entry()])?;
    fs::write(&file, &saved)?; // as if the process died before deleting it
    assert!(w.pending_notifications()?.is_empty());
    drop(w);

    let later = Inbox::push(&home, "s1", "later")?;
    let mut w = SessionWriter::open(&home, "s1")?;
    assert!(
        !file.exists(),
        "open removes inbox files already in history"
    );
    assert_eq!(w.commit_notifications()?, vec![later]);
    let origins: Vec<_> = w
        .records()
        .iter()
        .filter_map(|r| r.origin.clone())
        .collect();
    assert_eq!(origins.len(), origins.iter().collect::<HashSet<_>>().len());
    assert_eq!(origins.len(), 2);
    Ok(())
}

#[test]
fn notifications_queue_while_the_session_is_not_running() -> TestResult {
    let (_d, home) = home()?;
    session_with(&home, "s1", 1)?;
    Inbox::push(&home, "s1", "while away")?;
    fs::write(home.inbox_dir("s1")?.join("junk.json"), "{")?;
    let mut w = SessionWriter::open(&home, "s1")?;
    let got = w.commit_notifications()?;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].text, "while away");
    assert!(
        home.inbox_dir("s1")?.join("junk.json").exists(),
        "bad files are left alone"
    );
    Ok(())
}

#[test]
fn list_is_oldest_first_and_reports_broken_sessions() -> TestResult {
    let (_d, home) = home()?;
    assert!(list(&home)?.is_empty());
    session_with(&home, "b-first", 2)?;
    // Creation times are recorded to the millisecond: let one pass, so that the order by time
    // (not the tie-break by id, which would put `a-second` first) is what is tested.
    let first = std::time::SystemTime::now();
    while first.elapsed().unwrap_or_default() < std::time::Duration::from_millis(2) {
        std::thread::yield_now();
    }
    session_with(&home, "a-second", 1)?;
    session_with(&home, "broken", 1)?;
    append(&home, "broken", b"garbage\n")?;
    let path = home.history_path("broken")?;
    let text = fs::read_to_string(&path)?;
    fs::write(
        &path,
        format!("{text}{}\n", text.lines().nth(2).unwrap_or_default()),
    )?;
    fs::create_dir_all(home.sessions_dir().join(".tmp-x"))?;

    let all = list(&home)?;
    let ids: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["b-first", "a-second", "broken"]);
    assert_eq!(all[0].items, 4);
    assert_eq!(all[0].workspace, Path::new("/ws"));
    assert!(all[0].problem.is_none());
    assert!(
        all[2].problem.as_deref().is_some_and(|p| p.contains(":4:")),
        "{:?}",
        all[2]
    );
    Ok(())
}

#[test]
fn audit_log_appends_and_cuts_off_a_torn_line() -> TestResult {
    let (_d, home) = home()?;
    session_with(&home, "s1", 0)?;
    let mut log = AuditLog::open(&home, "s1")?;
    let sent = AuditEvent::FileSent {
        path: "a.txt".into(),
        bytes: 3,
        sha256: "ab".into(),
        truncated: false,
    };
    log.append(&sent)?;
    drop(log);
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(home.audit_path("s1")?)?;
    f.write_all(br#"{"ts":"2025-"#)?;
    let mut log = AuditLog::open(&home, "s1")?;
    let batch = [
        AuditEvent::PluginDecision {
            plugin: "guard".into(),
            hook: "on-prompt-submit".into(),
            decision: "cancel".into(),
            reason: Some("secrets".into()),
        },
        AuditEvent::ModelRequest {
            provider: "echo".into(),
            model: Some("echo".into()),
            items: 3,
            bytes: 120,
        },
    ];
    log.append_batch(&batch)?;
    let (records, warnings) = read_audit(&home, "s1")?;
    let events: Vec<AuditEvent> = records.into_iter().map(|r| r.event).collect();
    assert_eq!(events, [sent, batch[0].clone(), batch[1].clone()]);
    // A torn line is only ever the last one: the next append cut it off.
    assert_eq!(warnings.len(), 0);
    let line = fs::read_to_string(home.audit_path("s1")?)?;
    assert!(!line.contains(r#"{"ts":"2025-"#), "{line}");
    assert!(line.starts_with(r#"{"ts":""#) && line.contains(r#""event":{"type":"file_sent""#));
    Ok(())
}

/// Replaces the first `from` in line `line` (0-based) of session `id`'s history with `to`;
/// returns the new content.
fn edit_line(
    home: &Home,
    id: &str,
    line: usize,
    from: &str,
    to: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let path = home.history_path(id)?;
    let text = fs::read_to_string(&path)?;
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    assert!(lines[line].contains(from), "{}", lines[line]);
    lines[line] = lines[line].replacen(from, to, 1);
    let edited = format!("{}\n", lines.join("\n"));
    fs::write(&path, &edited)?;
    Ok(edited)
}

#[test]
fn a_flipped_letter_is_refused_naming_the_line_and_nothing_changes() -> TestResult {
    // In a middle group, in the last group's end record, in the header.
    for (line, from, to) in [(3, "g1-0", "g1-1"), (6, "g2-1", "g2-0"), (0, "/ws", "/wt")] {
        let (_d, home) = home()?;
        session_with(&home, "s1", 3)?;
        let path = home.history_path("s1")?;
        let edited = edit_line(&home, "s1", line, from, to)?;
        for err in [
            load(&home, "s1").err(),
            SessionWriter::open(&home, "s1").err(),
        ] {
            let msg = err.as_ref().map(ToString::to_string).unwrap_or_default();
            assert!(
                msg.contains(&format!("{}:{}:", path.display(), line + 1))
                    && msg.contains("checksum mismatch"),
                "line {line}: {msg}"
            );
        }
        assert_eq!(fs::read_to_string(&path)?, edited, "line {line}");
    }
    Ok(())
}

#[test]
fn a_removed_checksum_is_refused() -> TestResult {
    let (_d, home) = home()?;
    session_with(&home, "s1", 2)?;
    let path = home.history_path("s1")?;
    let text = fs::read_to_string(&path)?;
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let cut = lines[2].rfind(",\"sum\"").unwrap_or(0);
    lines[2] = format!("{}}}", &lines[2][..cut]);
    fs::write(&path, format!("{}\n", lines.join("\n")))?;
    let msg = load(&home, "s1")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        msg.contains(":3:") && msg.contains("without a checksum"),
        "{msg}"
    );
    Ok(())
}

/// A history written before checksums (no `minor`, no `sum`) loads, and a writer appends
/// sealed groups to it that load too.
#[test]
fn histories_without_checksums_still_load_and_grow() -> TestResult {
    let (_d, home) = home()?;
    session_with(&home, "s1", 2)?;
    let path = home.history_path("s1")?;
    let text = fs::read_to_string(&path)?;
    let old: String = text
        .lines()
        .map(|l| {
            let l = l
                .rfind(",\"sum\"")
                .map_or(l.to_owned(), |i| format!("{}}}", &l[..i]));
            format!(
                "{}\n",
                l.replacen(
                    &format!(",\"minor\":{}", crate::store::HISTORY_MINOR),
                    "",
                    1
                )
            )
        })
        .collect();
    assert!(!old.contains("sum") && !old.contains("minor"), "{old}");
    fs::write(&path, &old)?;
    let loaded = load(&home, "s1")?;
    assert_eq!(loaded.records.len(), 4);
    assert_eq!(loaded.unsealed, 4);
    assert_eq!(loaded.header.minor, 0);
    let mut w = SessionWriter::open(&home, "s1")?;
    w.commit(&group(1, "new"))?;
    drop(w);
    let loaded = load(&home, "s1")?;
    assert_eq!(loaded.records.len(), 5);
    assert_eq!(loaded.unsealed, 4);
    // The new record carries a sum that is checked even in an old file.
    let edited = edit_line(&home, "s1", 5, "new-0", "new-1")?;
    let msg = load(&home, "s1")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        msg.contains(":6:") && msg.contains("checksum mismatch"),
        "{msg}"
    );
    assert_eq!(fs::read_to_string(&path)?, edited);
    Ok(())
}

#[test]
fn salvage_copies_the_groups_before_the_damage_and_leaves_the_original() -> TestResult {
    let (_d, home) = home()?;
    session_with(&home, "s1", 4)?;
    let original = load(&home, "s1")?;
    let path = home.history_path("s1")?;
    let edited = edit_line(&home, "s1", 6, "g2-1", "g2-X")?;
    let report = verify(&home, "s1")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(report.contains(":7:"), "{report}");

    let saved = salvage(&home, "s1")?;
    assert_eq!((saved.records, saved.groups), (4, 2));
    assert!(matches!(
        saved.problem,
        Some(StoreError::Corrupt { line: 7, .. })
    ));
    assert_eq!(fs::read_to_string(&path)?, edited);
    let copy = load(&home, &saved.id)?;
    assert_eq!(copy.records, original.records[..4]);
    assert_eq!(copy.header.workspace, original.header.workspace);
    assert_eq!(verify(&home, &saved.id)?.records, 4);
    Ok(())
}
