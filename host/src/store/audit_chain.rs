//! The hash chain of an audit log: each record carries its sequence number (`seq`, from 0), the
//! hash of the record before it (`prev`; the session's anchor for the first) and its own
//! `hash`, the SHA-256 of the session's anchor followed by the line as written without its
//! `hash` field, which is always the line's last field. The anchor binds the chain to its
//! session: the SHA-256 of the session id and the checksum of the session's history header.
//!
//! Lines written before the chain carry none of the three fields; they read as before and
//! verify as "unchained".

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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
    prev: Option<String>,
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
fn computed_hash(line: &[u8], anchor: &str) -> Option<String> {
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
    let mut chunk: u64 = 64 * 1024;
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
                // A line cut short by a crash, terminated by a later append.
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
    /// The file ends in the middle of a record.
    Truncated {
        /// The line cut short.
        line: u64,
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
            Self::Truncated { line } => {
                write!(f, "the file ends in the middle of a record (line {line})")
            }
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainReport {
    /// Records read (chained or not).
    pub records: u64,
    /// Records written before the chain (no chain fields), all before the first chained one.
    pub unchained: u64,
    /// Lines cut short by a crash that the chain continues past.
    pub torn: u64,
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

/// Checks that the intact chain of `report` (read from `bytes`) holds the signed head
/// `signed`; records the break if not.
pub fn check_signed_head(report: &mut ChainReport, bytes: &[u8], signed: &ChainHead) {
    if report.broken.is_some() {
        return;
    }
    let last = report.head.as_ref().map(|h| h.seq);
    if last.is_none_or(|last| last < signed.seq) {
        report.broken = Some(ChainBreak::TailRemoved {
            last,
            signed: signed.seq,
        });
        return;
    }
    let held = bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Link>(line).ok())
        .any(|link| link.seq == Some(signed.seq) && link.hash.as_deref() == Some(&signed.hash));
    if !held {
        report.broken = Some(ChainBreak::Signature {
            detail: format!(
                "record {} of the log is not the one signed (the chain was rewritten)",
                signed.seq
            ),
        });
    }
}

/// The bytes an operator's key signs for session `id`'s chain `head`.
pub fn head_message(id: &str, head: &ChainHead) -> Vec<u8> {
    format!("warden audit head\0{id}\0{}\0{}", head.seq, head.hash).into_bytes()
}

/// One line of the log, split for checking.
struct Line<'a> {
    number: u64,
    bytes: &'a [u8],
    link: Option<Link>,
}

/// Checks the audit log `bytes` against `anchor`. `others` gives the anchors of other sessions,
/// to name the session an out-of-chain record came from.
pub fn verify_chain(bytes: &[u8], anchor: &str, others: &[(String, String)]) -> ChainReport {
    let mut report = ChainReport {
        records: 0,
        unchained: 0,
        torn: 0,
        head: None,
        broken: None,
    };
    let ends_cut = !bytes.is_empty() && bytes.last() != Some(&b'\n');
    let pieces: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let count = pieces.len();
    let mut lines = Vec::new();
    for (i, piece) in pieces.into_iter().enumerate() {
        if piece.is_empty() {
            continue;
        }
        let number = i as u64 + 1;
        if ends_cut && i + 1 == count {
            report.broken = Some(ChainBreak::Truncated { line: number });
            break;
        }
        lines.push(Line {
            number,
            bytes: piece,
            link: serde_json::from_slice::<Link>(piece).ok(),
        });
    }
    let truncated = report.broken.take();
    report.broken = walk(&lines, anchor, others, &mut report).or(truncated);
    report
}

fn walk(
    lines: &[Line<'_>],
    anchor: &str,
    others: &[(String, String)],
    report: &mut ChainReport,
) -> Option<ChainBreak> {
    // A line that is not a record, waiting to see whether the chain continues past it.
    let mut pending_bad: Option<u64> = None;
    for (index, line) in lines.iter().enumerate() {
        let Some(link) = &line.link else {
            pending_bad.get_or_insert(line.number);
            continue;
        };
        report.records += 1;
        let (Some(seq), Some(prev), Some(hash)) = (link.seq, &link.prev, &link.hash) else {
            if report.head.is_some() || link.seq.is_some() || link.hash.is_some() {
                return Some(ChainBreak::Edited {
                    line: line.number,
                    seq: link.seq,
                    detail: "its chain fields are missing".to_owned(),
                });
            }
            report.unchained += 1;
            continue;
        };
        if computed_hash(line.bytes, anchor).as_deref() != Some(hash.as_str()) {
            if let Some(session) = others
                .iter()
                .find(|(_, a)| computed_hash(line.bytes, a).as_deref() == Some(hash.as_str()))
            {
                return Some(ChainBreak::OutOfChain {
                    line: line.number,
                    seq: Some(seq),
                    session: Some(session.0.clone()),
                });
            }
            return Some(ChainBreak::Edited {
                line: line.number,
                seq: Some(seq),
                detail:
                    "its content does not match its hash (changed, or written for another session)"
                        .to_owned(),
            });
        }
        let (expected_seq, expected_prev) = match &report.head {
            Some(head) => (head.seq + 1, head.hash.as_str()),
            None => (0, anchor),
        };
        if prev != expected_prev || seq != expected_seq {
            if let Some(bad) = pending_bad {
                return Some(ChainBreak::Edited {
                    line: bad,
                    seq: None,
                    detail: "it is no longer a record".to_owned(),
                });
            }
            return Some(classify(
                lines,
                index,
                seq,
                expected_seq,
                prev,
                expected_prev,
            ));
        }
        if pending_bad.take().is_some() {
            report.torn += 1;
        }
        report.head = Some(ChainHead {
            seq,
            hash: hash.clone(),
        });
    }
    pending_bad.map(|line| ChainBreak::Edited {
        line,
        seq: None,
        detail: "it is no longer a record".to_owned(),
    })
}

/// Names the break at `lines[index]`, whose `seq` and `prev` do not continue the chain.
fn classify(
    lines: &[Line<'_>],
    index: usize,
    seq: u64,
    expected_seq: u64,
    prev: &str,
    expected_prev: &str,
) -> ChainBreak {
    let line = lines[index].number;
    let seqs_later = || {
        lines[index + 1..]
            .iter()
            .filter_map(|l| l.link.as_ref().and_then(|k| k.seq))
    };
    if seq == expected_seq {
        // In its place by number, but not linked to the record before: that record was
        // replaced, or this one belongs to another chain.
        if prev == expected_prev {
            return ChainBreak::Edited {
                line,
                seq: Some(seq),
                detail: "its sequence number does not match".to_owned(),
            };
        }
        return ChainBreak::OutOfChain {
            line,
            seq: Some(seq),
            session: None,
        };
    }
    let linked_to_earlier = lines[..index]
        .iter()
        .any(|l| l.link.as_ref().and_then(|k| k.hash.as_deref()) == Some(prev));
    if seq > expected_seq && !linked_to_earlier && !seqs_later().any(|s| s < seq) {
        return ChainBreak::Removed {
            line,
            from: expected_seq,
            to: seq - 1,
        };
    }
    if seq < expected_seq || seqs_later().any(|s| s < seq) {
        return ChainBreak::Reordered {
            line,
            seq,
            expected: expected_seq,
        };
    }
    ChainBreak::OutOfChain {
        line,
        seq: Some(seq),
        session: None,
    }
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
