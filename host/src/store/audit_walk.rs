//! Walking an audit log's chain one line at a time: [`Walk`] is fed each piece of the file in
//! order and hands back the records that continue the chain, until the first break; after it,
//! it only looks at the sequence numbers that follow, to name the break. Every reader of the
//! log goes through it (see [`super::audit_read`]), so what `warden audit verify` accepts is
//! exactly what `warden audit`, `plugin shadow-report` and `plugin replay` show.
//!
//! A line is a record when it is a well-typed audit record (`ts`, a known `event`) carrying
//! the three chain fields, or none of them in a log written before the chain. Only the bytes
//! after the last newline may be something else: a line cut short by a crash.

use std::collections::HashSet;
use std::time::SystemTime;

use serde::Deserialize;

use super::audit::{AuditEvent, AuditRecord};
use super::audit_chain::{ChainBreak, ChainHead, ChainReport, computed_hash};
use super::audit_file::{MAX_LINE, Piece};
use super::fsio::rfc3339;

/// What a log is checked against, besides its own chain.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The session's anchor.
    pub(crate) anchor: &'a str,
    /// (session, anchor) of other sessions, to name where an out-of-chain record came from.
    pub(crate) others: &'a [(String, String)],
    /// The history says a chaining warden wrote the session: every record must be chained.
    pub(crate) chained_only: bool,
    /// The chain heads the history recorded at its commits, in order.
    pub(crate) heads: &'a [ChainHead],
    /// A signed head the log must hold.
    pub(crate) signed: Option<&'a ChainHead>,
}

/// A line as read: the record and its chain fields.
#[derive(Deserialize)]
struct Full {
    #[serde(with = "rfc3339")]
    ts: SystemTime,
    event: AuditEvent,
    seq: Option<u64>,
    prev: Option<String>,
    hash: Option<String>,
}

/// The sequence number of a line after a break, when readable.
#[derive(Deserialize)]
struct SeqOnly {
    seq: Option<u64>,
}

/// A record whose `seq`/`prev` do not continue the chain, named once the rest is read.
struct Pending {
    line: u64,
    seq: u64,
    expected_seq: u64,
    prev_is_expected: bool,
    linked_to_earlier: bool,
}

/// The state of a walk through one log.
pub(crate) struct Walk<'a> {
    cx: Context<'a>,
    report: ChainReport,
    /// Index in `cx.heads` of the next recorded head to meet.
    next_head: usize,
    /// The first 64 bits of every accepted record's hash.
    earlier: HashSet<u64>,
    pending: Option<Pending>,
    /// The smallest sequence number after `pending`.
    later_min: Option<u64>,
}

impl<'a> Walk<'a> {
    /// A walk against `cx`.
    pub(crate) fn new(cx: Context<'a>) -> Self {
        Self {
            cx,
            report: ChainReport::default(),
            next_head: 0,
            earlier: HashSet::new(),
            pending: None,
            later_min: None,
        }
    }

    /// The head of the chain so far: the last record handed back, when it is chained.
    pub(crate) fn head(&self) -> Option<&ChainHead> {
        self.report.head.as_ref()
    }

    /// Feeds line `number`; returns its record when it continues the chain.
    pub(crate) fn feed(&mut self, number: u64, piece: Piece<'_>) -> Option<AuditRecord> {
        if self.pending.is_some() {
            if let Piece::Line(bytes) = piece
                && let Ok(SeqOnly { seq: Some(seq) }) = serde_json::from_slice(bytes)
            {
                self.later_min = Some(self.later_min.map_or(seq, |m| m.min(seq)));
            }
            return None;
        }
        if self.report.broken.is_some() {
            return None;
        }
        match piece {
            Piece::Torn(_) => {
                self.report.torn += 1;
                self.report.torn_line = Some(number);
                None
            }
            Piece::TooLong => {
                self.edited(
                    number,
                    None,
                    format!("it is longer than the {MAX_LINE} bytes a record may take"),
                );
                None
            }
            Piece::Line(bytes) => self.line(number, bytes),
        }
    }

    fn edited(&mut self, line: u64, seq: Option<u64>, detail: String) {
        self.report.broken = Some(ChainBreak::Edited { line, seq, detail });
    }

    fn line(&mut self, number: u64, bytes: &[u8]) -> Option<AuditRecord> {
        let full = match serde_json::from_slice::<Full>(bytes) {
            Ok(full) => full,
            Err(e) => {
                let detail = format!("it is not a well-typed audit record ({e})");
                self.edited(number, None, detail);
                return None;
            }
        };
        let record = AuditRecord {
            ts: full.ts,
            event: full.event,
        };
        self.report.records += 1;
        let (seq, prev, hash) = match (full.seq, full.prev, full.hash) {
            (Some(seq), Some(prev), Some(hash)) => (seq, prev, hash),
            (None, None, None) if !self.cx.chained_only && self.report.head.is_none() => {
                self.report.unchained += 1;
                return Some(record);
            }
            (seq, _, _) => {
                let detail = if self.cx.chained_only && self.report.head.is_none() {
                    "its chain fields are missing, though the history says every record of \
                     this session is chained"
                } else {
                    "its chain fields are missing"
                };
                self.edited(number, seq, detail.to_owned());
                return None;
            }
        };
        if computed_hash(bytes, self.cx.anchor).as_deref() != Some(hash.as_str()) {
            let from = self
                .cx
                .others
                .iter()
                .find(|(_, a)| computed_hash(bytes, a).as_deref() == Some(hash.as_str()));
            self.report.broken = Some(match from {
                Some((session, _)) => ChainBreak::OutOfChain {
                    line: number,
                    seq: Some(seq),
                    session: Some(session.clone()),
                },
                None => ChainBreak::Edited {
                    line: number,
                    seq: Some(seq),
                    detail: "its content does not match its hash (changed, or written for \
                             another session)"
                        .to_owned(),
                },
            });
            return None;
        }
        let (expected_seq, expected_prev) = match &self.report.head {
            Some(head) => (head.seq + 1, head.hash.as_str()),
            None => (0, self.cx.anchor),
        };
        if prev != expected_prev || seq != expected_seq {
            self.pending = Some(Pending {
                line: number,
                seq,
                expected_seq,
                prev_is_expected: prev == expected_prev,
                linked_to_earlier: short(&prev).is_some_and(|p| self.earlier.contains(&p)),
            });
            return None;
        }
        while let Some(head) = self.cx.heads.get(self.next_head)
            && head.seq <= seq
        {
            self.next_head += 1;
            if head.seq == seq && head.hash != hash {
                self.report.broken = Some(ChainBreak::HistoryMismatch { line: number, seq });
                return None;
            }
        }
        if let Some(signed) = self.cx.signed
            && signed.seq == seq
            && signed.hash != hash
        {
            self.report.broken = Some(ChainBreak::Signature {
                detail: format!(
                    "record {seq} of the log is not the one signed (the chain was rewritten)"
                ),
            });
            return None;
        }
        if let Some(h) = short(&hash) {
            self.earlier.insert(h);
        }
        self.report.head = Some(ChainHead { seq, hash });
        Some(record)
    }

    /// Ends the walk: names a pending break, and checks that the log reaches every head the
    /// history recorded and the signed head.
    pub(crate) fn finish(mut self) -> ChainReport {
        if let Some(p) = self.pending.take() {
            self.report.broken = Some(classify(&p, self.later_min));
        }
        if self.report.broken.is_some() {
            return self.report;
        }
        let last = self.report.head.as_ref().map(|h| h.seq);
        if let Some(recorded) = self.cx.heads.last()
            && last.is_none_or(|l| l < recorded.seq)
        {
            self.report.broken = Some(match self.report.torn_line {
                Some(line) => ChainBreak::Truncated { line },
                None => ChainBreak::HistoryAhead {
                    last,
                    recorded: recorded.seq,
                },
            });
            return self.report;
        }
        if let Some(signed) = self.cx.signed
            && last.is_none_or(|l| l < signed.seq)
        {
            self.report.broken = Some(ChainBreak::TailRemoved {
                last,
                signed: signed.seq,
            });
        }
        self.report
    }
}

/// The first 64 bits of a hex hash.
fn short(hash: &str) -> Option<u64> {
    u64::from_str_radix(hash.get(..16)?, 16).ok()
}

/// Names the break of `p`, whose `seq` and `prev` do not continue the chain; `later_min` is the
/// smallest sequence number after it.
fn classify(p: &Pending, later_min: Option<u64>) -> ChainBreak {
    let later_smaller = later_min.is_some_and(|m| m < p.seq);
    if p.seq == p.expected_seq {
        // In its place by number, but not linked to the record before: that record was
        // replaced, or this one belongs to another chain.
        if p.prev_is_expected {
            return ChainBreak::Edited {
                line: p.line,
                seq: Some(p.seq),
                detail: "its sequence number does not match".to_owned(),
            };
        }
        return ChainBreak::OutOfChain {
            line: p.line,
            seq: Some(p.seq),
            session: None,
        };
    }
    if p.seq > p.expected_seq && !p.linked_to_earlier && !later_smaller {
        return ChainBreak::Removed {
            line: p.line,
            from: p.expected_seq,
            to: p.seq - 1,
        };
    }
    if p.seq < p.expected_seq || later_smaller {
        return ChainBreak::Reordered {
            line: p.line,
            seq: p.seq,
            expected: p.expected_seq,
        };
    }
    ChainBreak::OutOfChain {
        line: p.line,
        seq: Some(p.seq),
        session: None,
    }
}
