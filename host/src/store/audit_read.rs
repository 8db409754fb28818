//! The one way an audit log is read: [`walk_audit`] opens session `id`'s log safely (see
//! [`super::audit_file`]), learns from the history whether a chaining warden wrote the session
//! and which chain heads it recorded, and walks the log line by line (see
//! [`super::audit_walk`]). `warden audit verify` reports what the walk found; [`read_audit`],
//! behind `warden audit`, `plugin shadow-report` and `plugin replay`, returns the same records
//! and refuses a log the walk calls broken. Both skip exactly one thing: a last line cut short
//! by a crash.

use std::fs;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::audit::{AuditRecord, session_anchor};
use super::audit_chain::{ChainBreak, ChainHead, ChainReport};
use super::audit_file::{LineReader, Mode, open_log};
use super::audit_head_file::{HEAD_FILE_MINOR, RecordedHead, read_recorded_head};
use super::audit_walk::{Context, Walk};
use super::record::Framing;
use super::scan::scan;
use super::{Home, LoadWarning, StoreError};

/// The history minor version from which every record of the session's audit log is chained
/// and each commit group records the chain head.
pub(crate) const CHAINED_MINOR: u64 = 2;

/// What the history says about its session's audit log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryHeads {
    /// A chaining warden created the session: every record of its log must be chained.
    pub chained_only: bool,
    /// The chain heads recorded at commit groups, in order, each once (in a log that was never
    /// replaced, their sequence numbers only grow).
    pub heads: Vec<ChainHead>,
    /// The session keeps `audit.head` (history minor version 3 on): it must exist.
    pub keeps_head_file: bool,
}

/// A history record read for its recorded chain head only.
#[derive(Deserialize)]
struct HeadProbe {
    seq: u64,
    group: u64,
    #[serde(rename = "item")]
    _item: IgnoredAny,
    #[serde(default)]
    end: bool,
    #[serde(default)]
    audit: Option<ChainHead>,
}

impl Framing for HeadProbe {
    fn seq(&self) -> u64 {
        self.seq
    }
    fn group(&self) -> u64 {
        self.group
    }
    fn end(&self) -> bool {
        self.end
    }
}

/// Reads what session `id`'s history says about its audit log.
pub fn history_heads(home: &Home, id: &str) -> Result<HistoryHeads, StoreError> {
    let path = home.existing_history(id)?;
    let bytes = fs::read(&path).map_err(StoreError::io("read", &path))?;
    let scanned = scan::<HeadProbe>(&path, &bytes)?;
    let mut heads: Vec<ChainHead> = Vec::new();
    for head in scanned.records.into_iter().filter_map(|r| r.audit) {
        if heads.last() != Some(&head) {
            heads.push(head);
        }
    }
    Ok(HistoryHeads {
        chained_only: scanned.header.minor >= CHAINED_MINOR,
        heads,
        keeps_head_file: scanned.header.minor >= HEAD_FILE_MINOR,
    })
}

/// Walks session `id`'s audit log against its anchor, its history and (when given) a signed
/// head, handing each record that continues the chain to `visit` with its chain head (none for
/// a record written before the chain). `others` names other sessions' anchors, to say where an
/// out-of-chain record came from. A log that cannot be opened safely (a symbolic link, a FIFO,
/// a device) or read is an error; everything else is in the report.
pub fn walk_audit(
    home: &Home,
    id: &str,
    others: &[(String, String)],
    signed: Option<&ChainHead>,
    mut visit: impl FnMut(AuditRecord, Option<&ChainHead>),
) -> Result<ChainReport, StoreError> {
    let anchor = session_anchor(home, id)?;
    let mut told = history_heads(home, id)?;
    let path = home.audit_path(id)?;
    // The head at the last turn's end, after the history's last: one more head to reach.
    let mut head_file_break = None;
    match read_recorded_head(home, id)? {
        RecordedHead::Head(head) => match told.heads.last() {
            Some(last) if last.seq > head.seq => {}
            Some(last) if last.seq == head.seq => {
                if last.hash != head.hash {
                    head_file_break = Some(ChainBreak::Missing {
                        detail: format!(
                            "{}/audit.head and the history name different records as record {}: \
                             one of them was rewritten",
                            path.parent()
                                .map_or_else(String::new, |p| p.display().to_string()),
                            head.seq
                        ),
                    });
                }
            }
            _ => told.heads.push(head),
        },
        RecordedHead::Empty => {}
        RecordedHead::Missing if told.keeps_head_file => {
            head_file_break = Some(ChainBreak::Missing {
                detail: format!(
                    "{}/audit.head is missing: this session keeps the chain head of each turn's \
                     end in it from its creation",
                    path.parent()
                        .map_or_else(String::new, |p| p.display().to_string())
                ),
            });
        }
        RecordedHead::Missing => {}
    }
    // A head recorded after a later one: the log was replaced by a new chain since. The walk
    // checks the heads that follow each other; the first that goes back is a break of its own.
    let mut heads: Vec<ChainHead> = Vec::with_capacity(told.heads.len());
    let mut restarted = None;
    for head in &told.heads {
        match heads.last() {
            Some(last) if last.seq >= head.seq => {
                restarted.get_or_insert(ChainBreak::Restarted {
                    earlier: last.seq,
                    later: head.seq,
                });
            }
            _ => heads.push(head.clone()),
        }
    }
    let cx = Context {
        anchor: &anchor,
        others,
        chained_only: told.chained_only,
        heads: &heads,
        signed,
    };
    let Some(file) = open_log(&path, Mode::Read)? else {
        let mut report = Walk::new(cx).finish();
        if told.chained_only || !heads.is_empty() {
            let detail = match heads.last() {
                Some(head) => format!(
                    "{} is missing: the session recorded record {} as the chain head",
                    path.display(),
                    head.seq
                ),
                None => format!(
                    "{} is missing: the history says this session's log was created with it",
                    path.display()
                ),
            };
            report.broken = Some(ChainBreak::Missing { detail });
        }
        return Ok(report);
    };
    let mut walk = Walk::new(cx);
    let mut lines = LineReader::new(file);
    while let Some((number, piece)) = lines.next_piece().map_err(StoreError::io("read", &path))? {
        if let Some(record) = walk.feed(number, piece) {
            visit(record, walk.head());
        }
    }
    let mut report = walk.finish();
    if report.broken.is_none() {
        report.broken = restarted.or(head_file_break);
    }
    Ok(report)
}

/// Reads the audit log of session `id`: every record, or an error naming the file and the
/// first break when the log does not verify. A last line cut short by a crash is skipped and
/// reported.
pub fn read_audit(
    home: &Home,
    id: &str,
) -> Result<(Vec<AuditRecord>, Vec<LoadWarning>), StoreError> {
    let mut records = Vec::new();
    let report = walk_audit(home, id, &[], None, |record, _| records.push(record))?;
    checked(home, id, report, records)
}

/// A record with its chain link (`seq` and `hash`; none for a record written before the chain).
pub type LinkedRecord = (AuditRecord, Option<ChainHead>);

/// [`read_audit`] with each record's chain head (`seq` and `hash`; none for a record written
/// before the chain), for export.
pub fn read_audit_linked(
    home: &Home,
    id: &str,
) -> Result<(Vec<LinkedRecord>, Vec<LoadWarning>), StoreError> {
    let mut records = Vec::new();
    let report = walk_audit(home, id, &[], None, |record, head| {
        records.push((record, head.cloned()));
    })?;
    checked(home, id, report, records)
}

fn checked<T>(
    home: &Home,
    id: &str,
    report: ChainReport,
    records: Vec<T>,
) -> Result<(Vec<T>, Vec<LoadWarning>), StoreError> {
    let path = home.audit_path(id)?;
    if let Some(problem) = report.broken {
        return Err(StoreError::AuditBroken {
            path,
            problem: Box::new(problem),
        });
    }
    let mut warnings = Vec::new();
    if let Some(line) = report.torn_line {
        warnings.push(LoadWarning::SkippedLine {
            path,
            line,
            reason: "a last line cut short by a crash".to_owned(),
        });
    }
    Ok((records, warnings))
}
