use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::store::{AuditEvent, AuditLog, Home, SessionWriter, StoreError, session_anchor};

const ANCHOR: &str = "anchor-of-this-session";

/// `n` sealed records chained under `anchor`, as lines without newlines.
fn chain(n: usize, anchor: &str) -> Vec<Vec<u8>> {
    let mut prev = anchor.to_owned();
    (0..n)
        .map(|seq| {
            let mut line = format!(
                r#"{{"ts":"2026-01-01T00:00:00.000Z","event":{{"type":"file_sent","path":"f{seq}.txt","bytes":{seq},"sha256":"ab","truncated":false}},"seq":{seq},"prev":"{prev}"}}"#
            )
            .into_bytes();
            prev = seal(&mut line, anchor).unwrap_or_default();
            line
        })
        .collect()
}

fn join(lines: &[Vec<u8>]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| l.iter().chain(b"\n"))
        .copied()
        .collect()
}

fn check(lines: &[Vec<u8>]) -> ChainReport {
    verify_chain(&join(lines), ANCHOR, &[])
}

#[test]
fn an_intact_chain_verifies_with_its_head() {
    let lines = chain(5, ANCHOR);
    let report = check(&lines);
    assert_eq!(report.status(), "intact", "{report:?}");
    assert_eq!(report.records, 5);
    assert_eq!(report.head.map(|h| h.seq), Some(4));
    assert_eq!(verify_chain(b"", ANCHOR, &[]).status(), "empty");
}

#[test]
fn each_kind_of_break_is_named() {
    let lines = chain(6, ANCHOR);
    let mut removed = lines.clone();
    removed.remove(2);
    assert_eq!(
        check(&removed).broken,
        Some(ChainBreak::Removed {
            line: 3,
            from: 2,
            to: 2
        })
    );
    let mut swapped = lines.clone();
    swapped.swap(1, 4);
    assert_eq!(
        check(&swapped).broken,
        Some(ChainBreak::Reordered {
            line: 2,
            seq: 4,
            expected: 1
        })
    );
    // Cut mid-record: a torn last line, the chain alone cannot tell; the history can.
    let mut cut = join(&lines);
    cut.truncate(cut.len() - 20);
    let report = verify_chain(&cut, ANCHOR, &[]);
    assert_eq!((report.broken, report.torn_line), (None, Some(6)));
    let recorded = [head_of(&lines[5])];
    assert_eq!(
        walk(&cut, true, &recorded, None).broken,
        Some(ChainBreak::Truncated { line: 6 })
    );
    let mut foreign = lines.clone();
    foreign.push(chain(7, "another")[6].clone());
    let others = [("other".to_owned(), "another".to_owned())];
    assert_eq!(
        verify_chain(&join(&foreign), ANCHOR, &others).broken,
        Some(ChainBreak::OutOfChain {
            line: 7,
            seq: Some(6),
            session: Some("other".into())
        })
    );
    // The first record of another session's log, in place of this one's.
    let replaced = chain(3, "another");
    assert!(matches!(
        check(&replaced).broken,
        Some(ChainBreak::Edited { line: 1, .. })
    ));
}

/// The chain head `line` carries.
fn head_of(line: &[u8]) -> ChainHead {
    let link: Link = serde_json::from_slice(line).unwrap_or(Link {
        seq: None,
        hash: None,
    });
    ChainHead {
        seq: link.seq.unwrap_or_default(),
        hash: link.hash.unwrap_or_default(),
    }
}

/// `bytes` checked as a session whose history says `chained_only` and recorded `heads`, with
/// a `signed` head.
fn walk(
    bytes: &[u8],
    chained_only: bool,
    heads: &[ChainHead],
    signed: Option<&ChainHead>,
) -> ChainReport {
    let mut walk = crate::store::audit_walk::Walk::new(crate::store::audit_walk::Context {
        anchor: ANCHOR,
        others: &[],
        chained_only,
        heads,
        signed,
    });
    let mut reader = crate::store::audit_file::LineReader::new(bytes);
    while let Ok(Some((n, piece))) = reader.next_piece() {
        walk.feed(n, piece);
    }
    walk.finish()
}

#[test]
fn a_line_that_is_not_a_record_is_a_break_unless_it_is_the_torn_last_line() {
    let lines = chain(3, ANCHOR);
    let mut bytes = join(&lines[..2]);
    bytes.extend_from_slice(b"{\"ts\":\"2026-\n");
    bytes.extend_from_slice(&join(&lines[2..]));
    let report = verify_chain(&bytes, ANCHOR, &[]);
    assert!(
        matches!(
            report.broken,
            Some(ChainBreak::Edited {
                line: 3,
                seq: None,
                ..
            })
        ),
        "{report:?}"
    );
    let mut torn = join(&lines);
    torn.extend_from_slice(b"{\"ts\":\"2026-");
    let report = verify_chain(&torn, ANCHOR, &[]);
    assert_eq!(report.broken, None, "{report:?}");
    assert_eq!(
        (report.records, report.torn, report.torn_line),
        (3, 1, Some(4))
    );
}

#[test]
fn a_mistyped_chain_field_or_an_unknown_event_is_not_a_record() {
    let mut lines = chain(3, ANCHOR);
    let text = String::from_utf8(lines[1].clone()).unwrap_or_default();
    lines[1] = text.replacen("\"seq\":1", "\"seq\":\"x\"", 1).into_bytes();
    let report = check(&lines);
    assert!(
        matches!(&report.broken, Some(ChainBreak::Edited { line: 2, seq: None, detail }) if detail.contains("well-typed")),
        "{report:?}"
    );
    let mut lines = chain(3, ANCHOR);
    let text = String::from_utf8(lines[2].clone()).unwrap_or_default();
    lines[2] = text.replacen("file_sent", "file_snet", 1).into_bytes();
    assert!(matches!(
        check(&lines).broken,
        Some(ChainBreak::Edited { line: 3, .. })
    ));
}

#[test]
fn a_session_the_history_says_is_chained_has_no_unchained_record() {
    let old =
        br#"{"ts":"2026-01-01T00:00:00.000Z","event":{"type":"other","kind":"x","detail":null}}"#;
    let bytes = join(&[old.to_vec(), old.to_vec()]);
    assert_eq!(walk(&bytes, false, &[], None).status(), "unchained");
    assert!(matches!(
        walk(&bytes, true, &[], None).broken,
        Some(ChainBreak::Edited { line: 1, .. })
    ));
    // Empty: fine with no recorded head, broken with one.
    assert_eq!(walk(b"", true, &[], None).status(), "empty");
    let lines = chain(2, ANCHOR);
    assert_eq!(
        walk(b"", true, &[head_of(&lines[1])], None).broken,
        Some(ChainBreak::HistoryAhead {
            last: None,
            recorded: 1
        })
    );
}

#[test]
fn a_recomputed_chain_disagrees_with_the_heads_the_history_recorded() {
    let lines = chain(4, ANCHOR);
    let recorded = [head_of(&lines[1]), head_of(&lines[3])];
    assert_eq!(walk(&join(&lines), true, &recorded, None).broken, None);
    // Record 2 edited and the chain recomputed from it: whole alone, not against record 3.
    let mut prev = head_of(&lines[1]).hash;
    let rewritten: Vec<Vec<u8>> = (0..4)
        .map(|seq| {
            if seq < 2 {
                return lines[seq].clone();
            }
            let mut line = format!(
                r#"{{"ts":"2026-01-01T00:00:00.000Z","event":{{"type":"file_sent","path":"g{seq}.txt","bytes":{seq},"sha256":"ab","truncated":false}},"seq":{seq},"prev":"{prev}"}}"#
            )
            .into_bytes();
            prev = seal(&mut line, ANCHOR).unwrap_or_default();
            line
        })
        .collect();
    assert_eq!(check(&rewritten).broken, None);
    assert_eq!(
        walk(&join(&rewritten), true, &recorded, None).broken,
        Some(ChainBreak::HistoryMismatch { line: 4, seq: 3 })
    );
    // Cut back to record 2: the history recorded record 3.
    assert_eq!(
        walk(&join(&lines[..3]), true, &recorded, None).broken,
        Some(ChainBreak::HistoryAhead {
            last: Some(2),
            recorded: 3
        })
    );
}

#[test]
fn records_written_before_the_chain_are_unchained_and_a_stripped_record_is_a_break() {
    let old =
        br#"{"ts":"2026-01-01T00:00:00.000Z","event":{"type":"other","kind":"x","detail":null}}"#;
    let mut lines = vec![old.to_vec(), old.to_vec()];
    assert_eq!(check(&lines).status(), "unchained");
    lines.extend(chain(2, ANCHOR));
    let report = check(&lines);
    assert_eq!((report.status(), report.unchained), ("intact", 2));
    lines.push(old.to_vec());
    assert!(matches!(
        check(&lines).broken,
        Some(ChainBreak::Edited { line: 5, .. })
    ));
}

proptest! {
    /// Any one byte of any one record changed to anything else is a break.
    #[test]
    fn any_single_record_edit_is_detected(
        n in 1usize..6,
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let mut lines = chain(n, ANCHOR);
        let record = pick.index(n);
        let i = at.index(lines[record].len());
        prop_assume!(lines[record][i] != byte);
        lines[record][i] = byte;
        let report = check(&lines);
        prop_assert!(report.broken.is_some(), "{report:?}");
    }

    /// Given the head the history recorded last, any one record removed (the last included),
    /// any record inserted again, and the log cut anywhere before it are breaks.
    #[test]
    fn any_removal_insertion_or_cut_is_detected_given_the_history(
        n in 1usize..8,
        a in any::<prop::sample::Index>(),
        b in any::<prop::sample::Index>(),
    ) {
        let lines = chain(n, ANCHOR);
        let recorded = [head_of(&lines[n - 1])];
        let mut removed = lines.clone();
        removed.remove(a.index(n));
        prop_assert!(walk(&join(&removed), true, &recorded, None).broken.is_some());
        let mut inserted = lines.clone();
        inserted.insert(b.index(n + 1), lines[a.index(n)].clone());
        prop_assert!(walk(&join(&inserted), true, &recorded, None).broken.is_some());
        let bytes = join(&lines);
        let cut = a.index(bytes.len());
        prop_assert!(walk(&bytes[..cut], true, &recorded, None).broken.is_some());
    }

    /// Any one record removed, except the last (which only the history or a signed head
    /// shows), is a break; so is any two swapped.
    #[test]
    fn any_removal_or_swap_is_detected(n in 2usize..8, a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>()) {
        let lines = chain(n, ANCHOR);
        let mut removed = lines.clone();
        removed.remove(a.index(n - 1));
        prop_assert!(check(&removed).broken.is_some());
        let (a, b) = (a.index(n), b.index(n));
        prop_assume!(a != b);
        let mut swapped = lines;
        swapped.swap(a, b);
        prop_assert!(check(&swapped).broken.is_some());
    }
}

fn session(dir: &Path) -> Result<Home, StoreError> {
    let home = Home::new(dir.join("state"));
    drop(SessionWriter::create(&home, Some("s1"), Path::new("/ws"))?);
    Ok(home)
}

fn event(i: usize) -> AuditEvent {
    AuditEvent::Other {
        kind: format!("e{i}"),
        detail: serde_json::Value::Null,
    }
}

#[test]
fn two_writers_of_one_session_extend_one_chain() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let home = session(dir.path())?;
    let mut first = AuditLog::open(&home, "s1")?;
    let mut second = AuditLog::open(&home, "s1")?;
    for i in 0..4 {
        first.append(&event(i))?;
        second.append_batch(&[event(10 + i), event(20 + i)])?;
    }
    // A line cut short by a crash between them: the next append cuts it off, so that a torn
    // line is only ever the last one.
    std::fs::OpenOptions::new()
        .append(true)
        .open(home.audit_path("s1")?)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"ts\":\"20"))?;
    first.append(&event(99))?;
    let bytes = std::fs::read(home.audit_path("s1")?)?;
    assert!(!String::from_utf8_lossy(&bytes).contains("{\"ts\":\"20{"));
    let report = verify_chain(&bytes, &session_anchor(&home, "s1")?, &[]);
    assert_eq!(report.broken, None, "{report:?}");
    assert_eq!((report.records, report.torn), (13, 0));
    assert_eq!(report.head.map(|h| h.seq), Some(12));
    Ok(())
}

#[test]
fn parallel_appenders_in_threads_and_handles_keep_one_chain()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let home = session(dir.path())?;
    std::thread::scope(|scope| {
        for t in 0..4 {
            let home = &home;
            scope.spawn(move || -> Result<(), StoreError> {
                let mut log = AuditLog::open(home, "s1")?;
                for i in 0..25 {
                    log.append(&event(t * 100 + i))?;
                }
                Ok(())
            });
        }
    });
    let bytes = std::fs::read(home.audit_path("s1")?)?;
    let report = verify_chain(&bytes, &session_anchor(&home, "s1")?, &[]);
    assert_eq!(report.broken, None, "{report:?}");
    assert_eq!(report.records, 100);
    assert_eq!(report.head.map(|h| h.seq), Some(99));
    Ok(())
}

#[test]
fn a_signed_head_must_be_in_the_log() {
    let lines = chain(4, ANCHOR);
    let bytes = join(&lines);
    let signed = |i: usize| head_of(&lines[i]);
    // Signed at record 2, the log runs on to 3: holds.
    assert_eq!(walk(&bytes, false, &[], Some(&signed(2))).broken, None);
    // A hash that is not record 2's: the chain was rewritten.
    let other = ChainHead {
        seq: 2,
        hash: "0".repeat(64),
    };
    assert!(matches!(
        walk(&bytes, false, &[], Some(&other)).broken,
        Some(ChainBreak::Signature { .. })
    ));
    // Signed at record 3, the log ends at 2.
    assert_eq!(
        walk(&join(&lines[..3]), false, &[], Some(&signed(3))).broken,
        Some(ChainBreak::TailRemoved {
            last: Some(2),
            signed: 3
        })
    );
}
