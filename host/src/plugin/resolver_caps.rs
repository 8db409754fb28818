//! The caps the host holds every resolver answer to before using it: a resolver component is
//! not trusted to honour `max-bytes`, `max-entries` or the documented string lengths. An
//! answer over a cap is a plugin failure (`BadOutput`), never cut and used.

use super::limits::MAX_PLUGIN_STRING;

/// What the caps read of a `resolve` or `read-file` answer, in any WIT version.
pub(crate) trait ContentAnswer {
    /// The path answered.
    fn path(&self) -> &str;
    /// Bytes of the text served.
    fn content_len(&self) -> usize;
}

/// What the caps read of a `list-files` answer, in any WIT version.
pub(crate) trait ListingAnswer {
    /// The path listed.
    fn path(&self) -> &str;
    /// The entries.
    fn entries(&self) -> &[String];
}

/// What the caps read of a resolver's error, in any WIT version.
pub(crate) trait ErrorAnswer {
    /// The message, whatever the case.
    fn message(&self) -> &str;
}

/// Longest path a resolver may return, in bytes.
pub(crate) const MAX_PATH_BYTES: usize = 4096;
/// Longest listing entry, in bytes.
pub(crate) const MAX_ENTRY_BYTES: usize = 4096;
/// Bytes allowed past `max-bytes`: the truncation marker and a cut character's bytes (the
/// stage's own reserve for its marker).
pub(crate) const CONTENT_MARGIN: u64 = 128;

/// What is over which cap, for the `BadOutput` message.
pub(crate) type Overrun = String;

fn string(what: &str, s: &str, max: usize) -> Result<(), Overrun> {
    length(what, s.len(), max)
}

fn length(what: &str, len: usize, max: usize) -> Result<(), Overrun> {
    if len > max {
        return Err(format!("{what} of {len} bytes, over the cap of {max}"));
    }
    Ok(())
}

fn content(what: &str, len: usize, max_bytes: u64) -> Result<(), Overrun> {
    let allowed = max_bytes.saturating_add(CONTENT_MARGIN);
    if len as u64 > allowed {
        return Err(format!(
            "{what} of {len} bytes, over the requested {max_bytes} (+{CONTENT_MARGIN} for the marker)"
        ));
    }
    Ok(())
}

/// An error answer: its message is at most [`MAX_PLUGIN_STRING`] bytes.
pub(crate) fn check_error(e: &impl ErrorAnswer) -> Result<(), Overrun> {
    string("an error message", e.message(), MAX_PLUGIN_STRING)
}

/// A `resolve` answer: content within `max_bytes` (+ margin) and `max_output`, a short path.
pub(crate) fn check_resolved(
    r: &impl ContentAnswer,
    max_bytes: u64,
    max_output: usize,
) -> Result<(), Overrun> {
    string("a path", r.path(), MAX_PATH_BYTES)?;
    length("content", r.content_len(), max_output)?;
    content("content", r.content_len(), max_bytes)
}

/// A `read-file` answer: as [`check_resolved`].
pub(crate) fn check_chunk(
    c: &impl ContentAnswer,
    max_bytes: u64,
    max_output: usize,
) -> Result<(), Overrun> {
    check_resolved(c, max_bytes, max_output)
}

/// A `list-files` answer: at most `max_entries` entries, each and all of them short enough.
pub(crate) fn check_listing(
    l: &impl ListingAnswer,
    max_entries: u32,
    max_output: usize,
) -> Result<(), Overrun> {
    string("a path", l.path(), MAX_PATH_BYTES)?;
    let entries = l.entries();
    if entries.len() as u64 > u64::from(max_entries) {
        return Err(format!(
            "{} entries, over the requested {max_entries}",
            entries.len()
        ));
    }
    let mut total = 0usize;
    for entry in entries {
        string("an entry", entry, MAX_ENTRY_BYTES)?;
        total = total.saturating_add(entry.len() + 1);
    }
    if total > max_output {
        return Err(format!(
            "{total} bytes of entries, over the cap of {max_output}"
        ));
    }
    Ok(())
}
