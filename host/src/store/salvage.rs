//! Checking and rescuing damaged sessions: [`verify`] reads a history the way `run` would and
//! reports what it found; [`salvage`] copies the longest valid prefix of a damaged history
//! (its complete groups before the first corruption) into a new session. Neither changes the
//! original.

use std::fs;

use super::history::SessionWriter;
use super::record::{Record, RecordIn};
use super::scan::scan_prefix;
use super::{Home, StoreError, load};

/// What [`verify`] found in one session.
#[derive(Debug)]
pub struct Verified {
    /// Records of complete groups.
    pub records: usize,
    /// Records without a checksum (written before checksums existed).
    pub unsealed: usize,
    /// A torn tail that `run` would drop, if any.
    pub torn: Option<String>,
}

/// Loads session `id` read-only and reports its records, or the first problem.
pub fn verify(home: &Home, id: &str) -> Result<Verified, StoreError> {
    let loaded = load(home, id)?;
    Ok(Verified {
        records: loaded.records.len(),
        unsealed: loaded.unsealed,
        torn: loaded.warnings.first().map(ToString::to_string),
    })
}

/// What [`salvage`] wrote.
#[derive(Debug)]
pub struct Salvaged {
    /// The new session's id.
    pub id: String,
    /// Records copied (the complete groups before the first problem).
    pub records: usize,
    /// Commit groups copied.
    pub groups: u64,
    /// The problem the copy stopped at, if the original has one.
    pub problem: Option<StoreError>,
}

/// Writes a new session holding the complete groups of session `id` before its first
/// corruption, with their timestamps, sources and origins. The original is only read.
pub fn salvage(home: &Home, id: &str) -> Result<Salvaged, StoreError> {
    let path = home.existing_history(id)?;
    let bytes = fs::read(&path).map_err(StoreError::io("read", &path))?;
    let (scanned, problem) = scan_prefix::<RecordIn>(&path, &bytes)?;
    drop(bytes);
    let records: Vec<Record> = scanned.records.into_iter().map(Record::from).collect();
    let mut writer = SessionWriter::create(home, None, &scanned.header.workspace)?;
    let mut groups = 0;
    for group in records.chunk_by(|a, b| a.group == b.group) {
        writer.commit_copies(group)?;
        groups += 1;
    }
    Ok(Salvaged {
        id: writer.id().to_owned(),
        records: records.len(),
        groups,
        problem,
    })
}
