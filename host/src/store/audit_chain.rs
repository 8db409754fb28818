//! The hash chain of an audit log: each record carries its sequence number (`seq`, from 0), the
//! hash of the record before it (`prev`; the session's anchor for the first) and its own
//! `hash`, the SHA-256 of the session's anchor followed by the line as written without its
//! `hash` field, which is always the line's last field. The anchor binds the chain to its
//! session: the SHA-256 of the session id and the checksum of the session's history header.
//!
//! Lines written before the chain carry none of the three fields; they read as before and
//! verify as "unchained", unless the session's history says a chaining warden wrote it. The
//! history also records the chain head at each commit group, so that a log cut short or
//! rewritten disagrees with it (see [`super::audit_walk`], which checks a log line by line).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::audit_file::LineReader;
use super::audit_walk::{Context, Walk};

/// The text between the covered bytes and the hash.
const PREFIX: &[u8] = b",\"hash\":\"";
/// Hex digits of the hash.
const DIGITS: usize = 64;
/// Everything the hash adds to a line: prefix, digits, closing quote and brace.
const SUFFIX_LEN: usize = PREFIX.len() + DIGITS + 2;

/// The end of a chain: the last record's sequence number and hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainHead {
    /// Sequence number of the last record.
    pub seq: u64,
    /// Its hash, lowercase hex.
    pub hash: String,
}

/// The anchor of session `id`'s chain, from the first line of its history (`history_head`).
pub(crate) fn anchor(id: &str, history_head: &[u8]) -> String {
    let sum = serde_json::from_slice::<Sum>(history_head)
        .ok()
        .and_then(|s| s.sum)
        .unwrap_or_default();
    hex(&Sha256::new()
        .chain_update(b"warden audit chain\0")
        .chain_update(id.as_bytes())
        .chain_update(b"\0")
        .chain_update(sum.as_bytes())
        .finalize())
}

#[derive(Deserialize)]
struct Sum {
    sum: Option<String>,
}

/// The chain fields of one line, as read.
#[derive(Debug, Deserialize)]
struct Link {
    seq: Option<u64>,
    hash: Option<String>,
}

/// Appends the hash to `line` (a JSON object, no newline) under `anchor`; returns the hash, or
/// `None` (line unchanged) if the line does not end with `}`.
pub(crate) fn seal(line: &mut Vec<u8>, anchor: &str) -> Option<String> {
    if line.last() != Some(&b'}') {
        return None;
    }
    let hash = hex(&Sha256::new()
        .chain_update(anchor.as_bytes())
        .chain_update(&line[..])
        .finalize());
    line.pop();
    line.extend_from_slice(PREFIX);
    line.extend_from_slice(hash.as_bytes());
    line.extend_from_slice(b"\"}");
    Some(hash)
}

/// The hash `line` should carry under `anchor`, when it carries one in the sealed form.
pub(crate) fn computed_hash(line: &[u8], anchor: &str) -> Option<String> {
    let start = line.len().checked_sub(SUFFIX_LEN)?;
    let (body, suffix) = line.split_at(start);
    let digits = suffix.strip_prefix(PREFIX)?;
    if digits.get(DIGITS..) != Some(b"\"}".as_slice()) {
        return None;
    }
    Some(hex(&Sha256::new()
        .chain_update(anchor.as_bytes())
        .chain_update(body)
        .chain_update(b"}")
        .finalize()))
}

/// The head of the chain of the log in `file` (`len` bytes): the last complete line that is a
/// record. `None` when the log is empty or its last record carries no chain fields (the chain
/// then starts afresh from the anchor).
pub(crate) fn read_head(mut file: &File, len: u64) -> std::io::Result<Option<ChainHead>> {
    let mut chunk: u64 = 4 * 1024;
    loop {
        let start = len.saturating_sub(chunk);
        file.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::new();
        file.take(len - start).read_to_end(&mut buf)?;
        let mut lines: Vec<&[u8]> = buf.split(|&b| b == b'\n').collect();
        // The text after the last newline is a line cut short (or nothing).
        lines.pop();
        // The first piece may be the end of a line that began before the chunk.
        let whole_from = usize::from(start > 0);
        for line in lines.iter().skip(whole_from).rev() {
            if line.is_empty() {
                continue;
            }
            match serde_json::from_slice::<Link>(line) {
                Ok(Link {
                    seq: Some(seq),
                    hash: Some(hash),
                    ..
                }) => return Ok(Some(ChainHead { seq, hash })),
                Ok(_) => return Ok(None),
                // Not a record: `verify` names it; the chain continues from the last one.
                Err(_) => continue,
            }
        }
        if start == 0 {
            return Ok(None);
        }
        chunk = chunk.saturating_mul(4);
    }
}

/// What went wrong first in a chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum ChainBreak {
    /// The record's content does not match its hash (or the line is no longer a record).
    Edited {
        /// Its line, from 1.
        line: u64,
        /// Its sequence number, when readable.
        #[serde(skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// What was found.
        detail: String,
    },
    /// Records are missing before this line.
    Removed {
        /// The line after the gap.
        line: u64,
        /// First missing sequence number.
        from: u64,
        /// Last missing sequence number.
        to: u64,
    },
    /// A record is out of its place.
    Reordered {
        /// Its line.
        line: u64,
        /// Its sequence number.
        seq: u64,
        /// The sequence number expected there.
        expected: u64,
    },
    /// A record that does not continue this chain: appended from another chain or session.
    OutOfChain {
        /// Its line.
        line: u64,
        /// Its sequence number, when readable.
        #[serde(skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// The session whose chain it belongs to, when one of the sessions checked matches.
        #[serde(skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    },
    /// The file ends in the middle of a record the history recorded as committed.
    Truncated {
        /// The line cut short.
        line: u64,
    },
    /// The log ends before the chain head the history recorded at a commit: records were
    /// removed from its end (or the whole log was).
    HistoryAhead {
        /// The last sequence number present.
        last: Option<u64>,
        /// The head the history recorded last.
        recorded: u64,
    },
    /// A record is not the one the history recorded as the chain head at a commit: the chain
    /// was recomputed after an edit.
    HistoryMismatch {
        /// Its line.
        line: u64,
        /// Its sequence number.
        seq: u64,
    },
    /// The history recorded a chain head after a later one: the log was replaced by a new
    /// chain (its records stripped or deleted, and a run started afresh).
    Restarted {
        /// The head recorded first.
        earlier: u64,
        /// The head recorded after it.
        later: u64,
    },
    /// The log is missing although the history says a chaining warden wrote the session.
    Missing {
        /// What was found.
        detail: String,
    },
    /// The signed head does not hold: no signature, one that does not verify, or a head that
    /// is not in the log.
    Signature {
        /// What was found.
        detail: String,
    },
    /// Records after the last present one are gone: the signed head is further on.
    TailRemoved {
        /// The last sequence number present.
        last: Option<u64>,
        /// The signed head's sequence number.
        signed: u64,
    },
}

impl std::fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Edited { line, seq, detail } => {
                write!(f, "line {line}")?;
                if let Some(seq) = seq {
                    write!(f, " (record {seq})")?;
                }
                write!(f, " was edited: {detail}")
            }
            Self::Removed { line, from, to } if from == to => {
                write!(f, "record {from} was removed (before line {line})")
            }
            Self::Removed { line, from, to } => {
                write!(
                    f,
                    "records {from} to {to} were removed (before line {line})"
                )
            }
            Self::Reordered {
                line,
                seq,
                expected,
            } => write!(
                f,
                "line {line} holds record {seq} where record {expected} belongs: records were reordered"
            ),
            Self::OutOfChain { line, seq, session } => {
                write!(f, "line {line}")?;
                if let Some(seq) = seq {
                    write!(f, " (record {seq})")?;
                }
                write!(
                    f,
                    " is out of chain: it does not follow the record before it"
                )?;
                if let Some(session) = session {
                    write!(f, " (it belongs to session {session:?})")?;
                }
                Ok(())
            }
            Self::Truncated { line } => write!(
                f,
                "the file ends in the middle of a record (line {line}) that the history \
                 recorded as committed"
            ),
            Self::HistoryAhead {
                last: Some(last),
                recorded,
            } => write!(
                f,
                "records after {last} were removed: the session recorded record {recorded} \
                 as the chain head (in its history at a commit, or in audit.head at a turn's \
                 end)"
            ),
            Self::HistoryAhead {
                last: None,
                recorded,
            } => write!(
                f,
                "every record was removed: the session recorded record {recorded} as the \
                 chain head (in its history at a commit, or in audit.head at a turn's end)"
            ),
            Self::HistoryMismatch { line, seq } => write!(
                f,
                "line {line} (record {seq}) is not the record the session recorded as a chain \
                 head (in its history or audit.head): the chain was rewritten"
            ),
            Self::Restarted { earlier, later } => write!(
                f,
                "the history recorded record {later} as the chain head after record {earlier}: \
                 the log was replaced by a new chain"
            ),
            Self::Missing { detail } => write!(f, "{detail}"),
            Self::Signature { detail } => write!(f, "signed head: {detail}"),
            Self::TailRemoved {
                last: Some(last),
                signed,
            } => write!(
                f,
                "records after {last} were removed: the signed head is record {signed}"
            ),
            Self::TailRemoved { last: None, signed } => write!(
                f,
                "every chained record was removed: the signed head is record {signed}"
            ),
        }
    }
}

/// What checking one audit log found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChainReport {
    /// Records read (chained or not).
    pub records: u64,
    /// Records written before the chain (no chain fields), all before the first chained one.
    pub unchained: u64,
    /// The last line, cut short by a crash (0 or 1): skipped.
    pub torn: u64,
    /// The line number of that last line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torn_line: Option<u64>,
    /// The chain's head, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<ChainHead>,
    /// The first break, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broken: Option<ChainBreak>,
}

impl ChainReport {
    /// `intact`, `unchained` (nothing chained to verify), `empty` or `broken`.
    pub fn status(&self) -> &'static str {
        if self.broken.is_some() {
            "broken"
        } else if self.records == 0 {
            "empty"
        } else if self.head.is_none() {
            "unchained"
        } else {
            "intact"
        }
    }
}

/// The bytes an operator's key signs for session `id`'s chain `head`.
pub fn head_message(id: &str, head: &ChainHead) -> Vec<u8> {
    format!("warden audit head\0{id}\0{}\0{}", head.seq, head.hash).into_bytes()
}

/// Checks the audit log `bytes` against `anchor` alone (no history, no signed head). `others`
/// gives the anchors of other sessions, to name the session an out-of-chain record came from.
pub fn verify_chain(bytes: &[u8], anchor: &str, others: &[(String, String)]) -> ChainReport {
    let cx = Context {
        anchor,
        others,
        chained_only: false,
        heads: &[],
        signed: None,
    };
    let mut walk = Walk::new(cx);
    let mut lines = LineReader::new(bytes);
    // Reading from memory cannot fail.
    while let Ok(Some((number, piece))) = lines.next_piece() {
        walk.feed(number, piece);
    }
    walk.finish()
}

fn hex(hash: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(hash.len() * 2);
    for b in hash {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

#[cfg(test)]
#[path = "audit_chain_tests.rs"]
mod tests;
