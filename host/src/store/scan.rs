//! Reading `history.jsonl`: the header check, the record framing (contiguous `seq` and `group`,
//! `end` on the last record of each group), and the line between a torn tail (dropped with a
//! warning) and corruption (an error naming the line).
//!
//! A writer appends a group with one write and starts the next only after the fsync of the
//! previous one returned, so whatever a crash leaves after the last complete group belongs to
//! one unfinished group that was never reported committed: complete records without the `end`
//! marker, a partial line, or (after a power loss) unreadable bytes. That tail is dropped with a
//! [`LoadWarning::TornTail`]. An unreadable line *followed by a complete group* (a record with
//! the `end` marker) cannot come from an interrupted append: it is corruption, reported with
//! its line number, as is any record whose `seq` or `group` does not follow its predecessor.
//!
//! Every complete line carries a checksum in files of minor version 1 (see `checksum`): a
//! line whose sum does not match its content is corruption wherever it is (bit rot or an edit
//! by hand, never an interrupted append, which cannot leave a whole line behind with a wrong
//! sum), as is a record without a sum in such a file. In files of minor version 0 a sum is
//! checked when present.

use std::path::Path;

use serde::de::DeserializeOwned;

use super::checksum::{self, Seal};
use super::record::{Framing, HISTORY_FORMAT, HISTORY_VERSION, Header, HeaderProbe};
use super::{LoadWarning, StoreError};

/// The outcome of reading a history file.
pub(crate) struct Scan<R> {
    /// The header line.
    pub(crate) header: Header,
    /// Records of complete groups, in file order.
    pub(crate) records: Vec<R>,
    /// Length in bytes of the header and the complete groups: where the next group goes.
    pub(crate) valid_len: u64,
    /// Set when an incomplete group or partial line at the end was dropped.
    pub(crate) torn: Option<LoadWarning>,
    /// Records kept that carry no checksum (all of them in a file written before checksums).
    pub(crate) unsealed: usize,
}

/// Parses the history file `path` whose content is `bytes`.
pub(crate) fn scan<R: DeserializeOwned + Framing>(
    path: &Path,
    bytes: &[u8],
) -> Result<Scan<R>, StoreError> {
    match scan_prefix(path, bytes)? {
        (scan, None) => Ok(scan),
        (_, Some(err)) => Err(err),
    }
}

/// Parses the history file `path` up to its first corruption: returns the complete groups
/// before it (with `valid_len` their end) and the corruption, if any. Only a bad header is an
/// error on its own.
pub(crate) fn scan_prefix<R: DeserializeOwned + Framing>(
    path: &Path,
    bytes: &[u8],
) -> Result<(Scan<R>, Option<StoreError>), StoreError> {
    let (header, mut pos) = read_header(path, bytes)?;
    let sealed = header.minor >= 1;
    let mut unsealed = 0;
    let mut unsealed_committed = 0;
    let mut failure = None;
    let mut records: Vec<R> = Vec::new();
    let mut committed = 0; // records of complete groups
    let mut valid_len = pos;
    let mut last_group = 0;
    let mut next_seq = 1;
    // (group id, first line) of the group being read, until its `end` record.
    let mut open: Option<(u64, u64)> = None;
    let mut line_no: u64 = 2;
    let mut torn_line = None;

    while pos < bytes.len() {
        let nl = find_newline(bytes, pos);
        let line_end = nl.unwrap_or(bytes.len());
        let line = &bytes[pos..line_end];
        let record: R = match nl.map(|_| serde_json::from_slice(line)) {
            Some(Ok(r)) => r,
            // A partial or unreadable line: the torn part of the file, unless a complete group
            // follows it.
            parsed => {
                let reason = match parsed {
                    Some(Err(e)) => format!("not a history record ({e})"),
                    _ => "incomplete line".to_owned(),
                };
                if let Err(e) =
                    check_nothing_committed_after::<R>(path, bytes, line_end + 1, line_no, &reason)
                {
                    failure = Some(e);
                } else {
                    torn_line = Some(open.map_or(line_no, |(_, first)| first));
                }
                break;
            }
        };
        match checksum::check(line) {
            Seal::Valid => {}
            Seal::Missing if !sealed => unsealed += 1,
            Seal::Missing => {
                failure = Some(StoreError::corrupt(
                    path,
                    line_no,
                    "record without a checksum in a history whose every line carries one",
                ));
                break;
            }
            Seal::Mismatch { found, computed } => {
                failure = Some(StoreError::corrupt(
                    path,
                    line_no,
                    format!(
                        "checksum mismatch (the line says {found}, its content gives \
                         {computed}): the line was changed after it was written"
                    ),
                ));
                break;
            }
        }
        let line_end = line_end + 1;
        if record.seq() != next_seq {
            failure = Some(StoreError::corrupt(
                path,
                line_no,
                format!("seq {} where {next_seq} was expected", record.seq()),
            ));
            break;
        }
        let expected_group = open.map_or(last_group + 1, |(g, _)| g);
        if record.group() != expected_group {
            let reason = match open {
                Some((g, first)) => format!(
                    "group {} starts before group {g} (from line {first}) has its end marker",
                    record.group()
                ),
                None => format!(
                    "group {} where group {expected_group} was expected",
                    record.group()
                ),
            };
            failure = Some(StoreError::corrupt(path, line_no, reason));
            break;
        }
        next_seq += 1;
        records.push(record);
        if records.last().is_some_and(Framing::end) {
            last_group = expected_group;
            open = None;
            committed = records.len();
            unsealed_committed = unsealed;
            valid_len = line_end;
        } else if open.is_none() {
            open = Some((expected_group, line_no));
        }
        pos = line_end;
        line_no += 1;
    }
    if torn_line.is_none() && failure.is_none() {
        torn_line = open.map(|(_, first)| first);
    }
    let torn = torn_line.map(|line| LoadWarning::TornTail {
        path: path.to_owned(),
        line,
        records: records.len() - committed,
        bytes: (bytes.len() - valid_len) as u64,
    });
    records.truncate(committed);
    let scan = Scan {
        header,
        records,
        valid_len: valid_len as u64,
        torn,
        unsealed: unsealed_committed,
    };
    Ok((scan, failure))
}

/// After a bad line at `bad_line`, checks that no complete group follows from byte `from` on:
/// an interrupted append leaves only the unfinished group behind, so a record with an `end`
/// marker after a bad line means the bad line is corruption in the middle of the history.
fn check_nothing_committed_after<R: DeserializeOwned + Framing>(
    path: &Path,
    bytes: &[u8],
    from: usize,
    bad_line: u64,
    reason: &str,
) -> Result<(), StoreError> {
    let mut pos = from;
    let mut line_no = bad_line + 1;
    while pos < bytes.len() {
        let Some(nl) = find_newline(bytes, pos) else {
            break;
        };
        if serde_json::from_slice::<R>(&bytes[pos..nl]).is_ok_and(|r| r.end()) {
            return Err(StoreError::corrupt(
                path,
                bad_line,
                format!("{reason}, and complete commit groups follow it (line {line_no})"),
            ));
        }
        pos = nl + 1;
        line_no += 1;
    }
    Ok(())
}

/// Parses and checks the header line; returns it and the offset of the first record line.
fn read_header(path: &Path, bytes: &[u8]) -> Result<(Header, usize), StoreError> {
    let Some(nl) = find_newline(bytes, 0) else {
        let reason = if bytes.is_empty() {
            "the file is empty; a history starts with a header line"
        } else {
            "the header line is incomplete"
        };
        return Err(StoreError::corrupt(path, 1, reason));
    };
    let line = &bytes[..nl];
    let probe: HeaderProbe = serde_json::from_slice(line)
        .map_err(|e| StoreError::corrupt(path, 1, format!("not a warden history header ({e})")))?;
    if probe.format != HISTORY_FORMAT || probe.version != u64::from(HISTORY_VERSION) {
        return Err(StoreError::UnsupportedFormat {
            path: path.to_owned(),
            line: 1,
            format: probe.format,
            version: probe.version,
            supported: HISTORY_VERSION,
        });
    }
    let header: Header = serde_json::from_slice(line)
        .map_err(|e| StoreError::corrupt(path, 1, format!("invalid history header ({e})")))?;
    match checksum::check(line) {
        Seal::Valid => {}
        Seal::Missing if header.minor == 0 => {}
        Seal::Missing => {
            return Err(StoreError::corrupt(
                path,
                1,
                "header without a checksum, though it declares minor version 1",
            ));
        }
        Seal::Mismatch { found, computed } => {
            return Err(StoreError::corrupt(
                path,
                1,
                format!(
                    "header checksum mismatch (the line says {found}, its content gives \
                     {computed}): the line was changed after it was written"
                ),
            ));
        }
    }
    Ok((header, nl + 1))
}

/// Reads only the header of a history file, for listing a session whose records are broken.
pub(crate) fn peek_header(path: &Path, bytes: &[u8]) -> Option<Header> {
    read_header(path, bytes).ok().map(|(h, _)| h)
}

fn find_newline(bytes: &[u8], from: usize) -> Option<usize> {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| from + i)
}
