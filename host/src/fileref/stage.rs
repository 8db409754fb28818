//! The submit-time stage: resolve every `@path` of a prompt, in mention order, through a
//! [`Resolve`]r, and turn the results into the items to commit, the alerts to show, the
//! `refs` report of `preview --json` and the audit data of every file placed.
//!
//! Rules: a failed reference raises one Warn alert (source `fileref`) with the reason, appears
//! in the user item as `[unresolved file ref: <path>]` and yields no item; the others still
//! resolve. Each reference gets at most `max_bytes`, and at most what is left of the prompt's
//! `max_total_bytes` (minus room for the truncation marker): a file over what is left is cut
//! (with an Info alert), and once less than [`MIN_REF_BYTES`] is left, further references are
//! dropped as `too-large` with a Warn alert naming them. A mention with a line range whose
//! whole text names an existing file (`@a#L1` and a file `a#L1`) resolves to that file. A
//! reference not found offers the closest paths ([`suggest`]).

use super::dedup::{ShownFiles, digest_hex};
use super::parser;
use super::placement::{self, Body, PlacedRef};
use super::report::{FileAudit, RESOLVED, RefReport};
use super::suggest;
use crate::config::FileRefConfig;
use crate::domain::Resolve;
use crate::domain::defaults::truncation_marker;
use crate::domain::{Alert, Entry, Item, LineRange, Segment, Source};
use crate::domain::{ResolveError, ResolveRequest, Resolved};

/// Source name of the stage's alerts.
pub const ALERT_SOURCE: &str = "fileref";

/// Bytes kept free of the budget for a truncation marker.
pub const MARKER_RESERVE: u64 = 128;

/// Below this many bytes left in the prompt's budget, references are dropped, not cut.
pub const MIN_REF_BYTES: u64 = 256;

/// What a prompt becomes once its references are resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedPrompt {
    /// The prompt as typed, failed mentions replaced by `[unresolved file ref: <path>]`.
    pub user_text: String,
    /// The user item, then the file items per the placement policy; sources assigned, files
    /// shown recorded.
    pub entries: Vec<Entry>,
    /// One Warn alert per failed reference; Info alerts for cuts by the budget.
    pub alerts: Vec<Alert>,
    /// One report per mention, in mention order.
    pub refs: Vec<RefReport>,
    /// One entry per file whose content was placed.
    pub audit: Vec<FileAudit>,
}

/// Resolve the references among `segments` and place them.
///
/// `shown` is what the session already shows (see [`ShownFiles::from_history`]); it is not
/// changed: after committing, call [`ShownFiles::record`] with the items.
pub fn resolve_prompt<R: Resolve + ?Sized>(
    segments: &[Segment],
    resolver: &mut R,
    config: &FileRefConfig,
    shown: &ShownFiles,
) -> ResolvedPrompt {
    let mut shown = shown.clone();
    let mut user_text = String::new();
    let mut placed = Vec::new();
    let mut alerts = Vec::new();
    let mut refs = Vec::new();
    let mut audit = Vec::new();
    let mut used = 0u64;
    let mut dropped: Vec<String> = Vec::new();
    let mut suggested = 0;

    for (index, segment) in segments.iter().enumerate() {
        let (raw, path, range) = match segment {
            Segment::Text { text } => {
                user_text.push_str(text);
                continue;
            }
            Segment::FileRef { raw, path, range } => (raw, path, *range),
        };
        let left = config
            .max_total_bytes
            .saturating_sub(used)
            .saturating_sub(MARKER_RESERVE);
        let over_budget = left < MIN_REF_BYTES.min(config.max_bytes);
        let outcome = if let Some(error) = range.and_then(|r| range_error(path, r)) {
            Err(error)
        } else if over_budget {
            Err(ResolveError::TooLarge(format!(
                "{}: dropped, the prompt's file budget of {} bytes is spent",
                placement::printable(path),
                config.max_total_bytes
            )))
        } else {
            resolve_one(resolver, raw, path, range, config.max_bytes.min(left))
        };
        match outcome
            .map(|(resolved, range)| (enforce_cap(resolved, config.max_bytes.min(left)), range))
        {
            Ok((resolved, range)) => {
                user_text.push_str(raw);
                if resolved.truncated && left < config.max_bytes && resolved.total_bytes > left {
                    alerts.push(Alert::info(
                        ALERT_SOURCE,
                        format!("{raw} cut to {left} bytes by the prompt's file budget"),
                    ));
                }
                let label = placement::label(&resolved.path, resolved.kind, range);
                // Hashed once: dedup, the audit log and the history metadata share it.
                let sha256 = digest_hex(&resolved.content);
                let unchanged = config.dedup && shown.is_unchanged_digest(&label, &sha256);
                let bytes = if unchanged {
                    0
                } else {
                    resolved.content.len() as u64
                };
                refs.push(RefReport {
                    raw: raw.clone(),
                    path: resolved.path.clone(),
                    range,
                    status: RESOLVED,
                    bytes,
                    truncated: resolved.truncated,
                });
                let body = if unchanged {
                    Body::Unchanged
                } else {
                    used += bytes;
                    audit.push(FileAudit {
                        path: label.clone(),
                        bytes,
                        sha256: sha256.clone(),
                        truncated: resolved.truncated,
                    });
                    shown.remember_digest(&label, sha256.clone());
                    Body::Content(resolved.content)
                };
                placed.push(PlacedRef {
                    path: resolved.path,
                    range,
                    kind: resolved.kind,
                    body,
                    truncated: resolved.truncated,
                    sha256,
                });
            }
            Err(error) => {
                let error = past_end(resolver, path, range, error);
                let shown = match range {
                    Some(r) => format!("{}{}", placement::printable(path), r),
                    None => placement::printable(path),
                };
                user_text.push_str(&format!("[unresolved file ref: {shown}]"));
                if over_budget && matches!(error, ResolveError::TooLarge(_)) {
                    dropped.push(placement::printable(raw));
                } else {
                    let hint = match (&error, segments.get(index + 1)) {
                        (ResolveError::NotFound(_), Some(Segment::Text { text }))
                            if !raw.starts_with("@\"") =>
                        {
                            spaced_name_hint(resolver, path, text)
                        }
                        _ => None,
                    };
                    let hint = match (&error, hint) {
                        (ResolveError::NotFound(_), None) if suggested < suggest::MAX_REFS => {
                            suggested += 1;
                            suggest::hint(resolver, path)
                        }
                        (_, hint) => hint,
                    };
                    alerts.push(Alert::warn(
                        ALERT_SOURCE,
                        format!("{raw} not included — {error}{}", hint.unwrap_or_default()),
                    ));
                }
                refs.push(RefReport {
                    raw: raw.clone(),
                    path: path.clone(),
                    range,
                    status: error.status(),
                    bytes: 0,
                    truncated: false,
                });
            }
        }
    }

    if !dropped.is_empty() {
        alerts.push(Alert::warn(
            ALERT_SOURCE,
            budget_note(&dropped, config.max_total_bytes),
        ));
    }
    let mut entries = vec![Entry::new(Source::User, Item::user(user_text.clone()))];
    entries.extend(placement::place_entries(
        config.placement,
        &placed,
        shown.next_call(),
    ));
    ResolvedPrompt {
        user_text,
        entries,
        alerts,
        refs,
        audit,
    }
}

/// Words after a not-found mention tried as the rest of a name with spaces.
const SPACED_NAME_WORDS: usize = 4;

/// When `path` followed by the next words of the prompt names a file, the quotes around it
/// were probably removed by the shell: say how to keep them.
fn spaced_name_hint<R: Resolve + ?Sized>(
    resolver: &mut R,
    path: &str,
    after: &str,
) -> Option<String> {
    if !after.starts_with(' ') {
        return None;
    }
    let mut candidate = path.to_owned();
    for word in after.split(' ').skip(1).take(SPACED_NAME_WORDS) {
        let word = word.trim_end_matches(|c: char| TRAILING_PROSE.contains(&c));
        if word.is_empty() || word.contains('@') {
            return None;
        }
        candidate.push(' ');
        candidate.push_str(word);
        let probe = ResolveRequest {
            path: candidate.clone(),
            range: None,
            max_bytes: 1,
        };
        if resolver.resolve(&probe).is_ok() {
            let shown = placement::printable(&candidate);
            return Some(format!(
                "; \"{shown}\" exists: if you wrote @\"{shown}\", the shell removed the quotes \
                 — put the whole prompt in single quotes: '… @\"{shown}\" …'"
            ));
        }
    }
    None
}

/// Punctuation that may follow a name in prose.
const TRAILING_PROSE: &[char] = &['.', ',', ';', ':', '!', '?', ')', ']', '}', '"', '\''];

/// Mentions named in the budget alert before "and N more".
const DROPPED_NAMED: usize = 3;

/// The one alert for every reference the budget dropped.
fn budget_note(dropped: &[String], budget: u64) -> String {
    let n = dropped.len();
    let mut named = dropped
        .iter()
        .take(DROPPED_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if n > DROPPED_NAMED {
        named.push_str(&format!(" and {} more", n - DROPPED_NAMED));
    }
    let noun = if n == 1 { "reference" } else { "references" };
    format!(
        "{n} {noun} dropped: the prompt's file budget of {budget} bytes is spent: {named}; \
         raise fileref.max_total_bytes to include more"
    )
}

/// `#L0` and reversed ranges are mistakes in the reference, refused before any read.
fn range_error(path: &str, range: LineRange) -> Option<ResolveError> {
    let shown = placement::printable(path);
    if range.start == 0 {
        return Some(ResolveError::Invalid(format!(
            "{shown}{}: invalid line range: lines are numbered from 1",
            range
        )));
    }
    (range.start > range.end).then(|| {
        ResolveError::Invalid(format!(
            "{shown}{}: invalid line range: the start is after the end",
            range
        ))
    })
}

/// A ranged reference reported `not-found` although the file exists: the range is past its
/// end, and is reported as such.
fn past_end<R: Resolve + ?Sized>(
    resolver: &mut R,
    path: &str,
    range: Option<LineRange>,
    error: ResolveError,
) -> ResolveError {
    let ResolveError::NotFound(message) = &error else {
        return error;
    };
    let Some(range) = range else {
        return error;
    };
    let probe = ResolveRequest {
        path: path.to_owned(),
        range: None,
        max_bytes: 1,
    };
    match resolver.resolve(&probe) {
        Ok(_) if message.contains("past the end") => ResolveError::Invalid(message.clone()),
        Ok(_) => ResolveError::Invalid(format!(
            "{}{}: the range is past the end of the file",
            placement::printable(path),
            range
        )),
        Err(_) => error,
    }
}

/// Hold a resolver to its cap: content longer than `max_bytes` plus room for the marker is
/// cut here (a resolver component is not trusted to honour the cap).
fn enforce_cap(mut resolved: Resolved, max_bytes: u64) -> Resolved {
    let allowed = usize::try_from(max_bytes.saturating_add(MARKER_RESERVE)).unwrap_or(usize::MAX);
    if resolved.content.len() > allowed {
        let mut end = usize::try_from(max_bytes)
            .unwrap_or(usize::MAX)
            .min(resolved.content.len());
        while !resolved.content.is_char_boundary(end) {
            end -= 1;
        }
        resolved.content.truncate(end);
        let total = resolved.total_bytes.max(end as u64);
        resolved.content.push('\n');
        resolved.content.push_str(&truncation_marker(total));
        resolved.truncated = true;
    }
    resolved
}

/// Resolve one mention; a file literally named with the `#L…` suffix wins over the range.
/// Returns the range that applies.
fn resolve_one<R: Resolve + ?Sized>(
    resolver: &mut R,
    raw: &str,
    path: &str,
    range: Option<LineRange>,
    max_bytes: u64,
) -> Result<(Resolved, Option<LineRange>), ResolveError> {
    if range.is_some()
        && let Some(literal) = parser::literal_path(raw)
    {
        let request = ResolveRequest {
            path: literal,
            range: None,
            max_bytes,
        };
        match resolver.resolve(&request) {
            Err(ResolveError::NotFound(_)) => {}
            other => return other.map(|r| (r, None)),
        }
    }
    let request = ResolveRequest {
        path: path.to_owned(),
        range,
        max_bytes,
    };
    resolver.resolve(&request).map(|r| (r, range))
}

#[cfg(test)]
#[path = "stage_tests.rs"]
mod tests;
