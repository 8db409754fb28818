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
//! whole text names an existing file (`@a#L1` and a file `a#L1`) resolves to that file.

use super::dedup::{ShownFiles, digest_hex};
use super::parser;
use super::placement::{self, Body, PlacedRef};
use super::report::{FileAudit, RESOLVED, RefReport};
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

    for segment in segments {
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
        let outcome = if left < MIN_REF_BYTES.min(config.max_bytes) {
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
                let unchanged = config.dedup && shown.is_unchanged(&label, &resolved.content);
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
                        sha256: digest_hex(&resolved.content),
                        truncated: resolved.truncated,
                    });
                    shown.remember(&label, &resolved.content);
                    Body::Content(resolved.content)
                };
                placed.push(PlacedRef {
                    path: resolved.path,
                    range,
                    kind: resolved.kind,
                    body,
                    truncated: resolved.truncated,
                });
            }
            Err(error) => {
                user_text.push_str(&format!(
                    "[unresolved file ref: {}]",
                    placement::printable(path)
                ));
                alerts.push(Alert::warn(
                    ALERT_SOURCE,
                    format!("{raw} not included — {error}"),
                ));
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
