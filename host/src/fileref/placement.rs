//! Placement policies: how resolved references become history entries. Each entry records the
//! files it shows as metadata ([`FileShown`]), which is what deduplication reads after a resume.
//!
//! - `system-message`: one `System` item per reference, `[File: <label>]\n<body>`
//!   (`[Directory: <label>/]` for a directory).
//! - `reminder`: one `System` item, `<system-reminder>` holding one `<file path="…">` (or
//!   `<directory path="…">`) block per reference.
//!
//! In both, the body goes through [`crate::domain::block::body`] (the rule every host block
//! follows), so a file's content can neither close nor open a block nor start a line that
//! passes for a header (`[File: .env]`) or a notification; attribute values go through
//! [`crate::domain::block::attribute`].
//! - `tool-result`: one `Assistant` item with a `read_file` / `list_files` call per reference,
//!   then one `ToolResult` per call, with ids `fileref-<n>` numbered across the session.
//!
//! In every placement a directory's listing shows each entry marked `- ` ([`super::listing`]),
//! so no file name passes for a header or a note of the listing.
//!
//! A reference already shown with the same content is placed as a note,
//! `[File: <label> unchanged since it was last shown]`, instead of its body.

use serde_json::{Map, Value};

use super::listing;
use crate::config::Placement;
use crate::domain::block;
use crate::domain::{Entry, EntryKind, FileShown, Item, LineRange, Source, ToolCall};

/// What a reference contributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// The content (file text, selected lines, or listing).
    Content(String),
    /// Shown before with the same content.
    Unchanged,
}

/// A resolved reference, ready to be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedRef {
    /// Normalised path from the resolver.
    pub path: String,
    /// Line range, if any.
    pub range: Option<LineRange>,
    /// File or directory.
    pub kind: EntryKind,
    /// Content or the unchanged note.
    pub body: Body,
    /// The content was cut.
    pub truncated: bool,
    /// sha256 (hex) of the content (the stage has it from dedup).
    pub sha256: String,
}

impl PlacedRef {
    /// The text shown for `body`: a directory's listing with its entries marked.
    fn shown<'a>(&self, body: &'a str) -> std::borrow::Cow<'a, str> {
        match self.kind {
            EntryKind::Directory => std::borrow::Cow::Owned(listing::mark(body, self.truncated)),
            EntryKind::File => std::borrow::Cow::Borrowed(body),
        }
    }

    /// The name shown for it: the path with control characters escaped, a `/` after a
    /// directory, the line range after a file (`src/a.rs#L3-5`).
    pub fn label(&self) -> String {
        label(&self.path, self.kind, self.range)
    }
}

/// See [`PlacedRef::label`].
pub fn label(path: &str, kind: EntryKind, range: Option<LineRange>) -> String {
    let mut out = printable(path);
    match kind {
        EntryKind::Directory if !out.ends_with('/') => out.push('/'),
        EntryKind::Directory => {}
        EntryKind::File => {
            if let Some(range) = range {
                out.push_str(&range.to_string());
            }
        }
    }
    out
}

/// `path` escaped by [`crate::domain::escape::escape`] (control characters, line separators, bidi
/// overrides), so a file name cannot break a line or reorder it.
pub fn printable(path: &str) -> String {
    crate::domain::escape::escape(path).into_owned()
}

/// The note that replaces an unchanged body.
pub fn unchanged_note(kind: EntryKind, label: &str) -> String {
    format!(
        "[{} {label} unchanged since it was last shown]",
        heading(kind)
    )
}

fn heading(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::File => "File:",
        EntryKind::Directory => "Directory:",
    }
}

/// Prefix of the ids of synthesized tool calls; reserved to the host.
pub const CALL_ID_PREFIX: &str = "fileref-";

/// The id of the `n`-th synthesized tool call of a session.
pub fn call_id(n: u64) -> String {
    format!("{CALL_ID_PREFIX}{n}")
}

/// Items for `refs` under `placement`, in mention order. `next_call` numbers synthesized tool
/// calls (see [`ShownFiles::next_call`](super::ShownFiles::next_call)).
pub fn place(placement: Placement, refs: &[PlacedRef], next_call: u64) -> Vec<Item> {
    if refs.is_empty() {
        return Vec::new();
    }
    match placement {
        Placement::SystemMessage => refs.iter().map(system_message).collect(),
        Placement::Reminder => vec![reminder(refs)],
        Placement::ToolResult => tool_result(refs, next_call),
    }
}

fn system_message(r: &PlacedRef) -> Item {
    let label = r.label();
    match &r.body {
        Body::Content(body) => Item::system(format!(
            "[{} {label}]\n{}",
            heading(r.kind),
            block::body(&r.shown(body))
        )),
        Body::Unchanged => Item::system(unchanged_note(r.kind, &label)),
    }
}

const REMINDER_OPEN: &str = "<system-reminder>\n";
const REMINDER_CLOSE: &str = "</system-reminder>";

fn tag(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::File => "file",
        EntryKind::Directory => "directory",
    }
}

fn reminder(refs: &[PlacedRef]) -> Item {
    let mut out = String::from(REMINDER_OPEN);
    out.push_str("Files the user referenced, in the order mentioned:\n");
    for r in refs {
        let tag = tag(r.kind);
        let path = block::attribute(&r.label());
        match &r.body {
            Body::Content(body) => {
                out.push_str(&format!("<{tag} path=\"{path}\">\n"));
                out.push_str(&block::body(&r.shown(body)));
                out.push_str(&format!("\n</{tag}>\n"));
            }
            Body::Unchanged => {
                out.push_str(&format!(
                    "<{tag} path=\"{path}\" unchanged=\"since it was last shown\"/>\n"
                ));
            }
        }
    }
    out.push_str(REMINDER_CLOSE);
    Item::system(out)
}

fn tool_result(refs: &[PlacedRef], next_call: u64) -> Vec<Item> {
    let mut calls = Vec::with_capacity(refs.len());
    let mut results = Vec::with_capacity(refs.len());
    for (i, r) in refs.iter().enumerate() {
        let id = call_id(next_call + i as u64);
        let mut args = Map::new();
        args.insert("path".into(), Value::String(r.path.clone()));
        let name = match r.kind {
            EntryKind::File => {
                if let Some(range) = r.range {
                    args.insert("offset".into(), range.start.into());
                    args.insert(
                        "limit".into(),
                        (range.end.saturating_sub(range.start) + 1).into(),
                    );
                }
                "read_file"
            }
            EntryKind::Directory => "list_files",
        };
        calls.push(ToolCall {
            id: id.clone(),
            name: name.to_owned(),
            arguments: Value::Object(args),
        });
        let content = match &r.body {
            Body::Content(body) => r.shown(body).into_owned(),
            Body::Unchanged => unchanged_note(r.kind, &r.label()),
        };
        results.push(Item::ToolResult {
            call_id: id,
            content,
            is_error: false,
        });
    }
    let mut items = vec![Item::Assistant {
        text: String::new(),
        tool_calls: calls,
    }];
    items.extend(results);
    items
}

/// The entries for `refs` under `placement`: the items of [`place`], each recording the files
/// whose content it shows (path, kind, range, sha256, bytes, truncation), so that dedup and
/// compaction read metadata, never rendered text.
pub fn place_entries(placement: Placement, refs: &[PlacedRef], next_call: u64) -> Vec<Entry> {
    let items = place(placement, refs, next_call);
    let shown = |r: &PlacedRef| match &r.body {
        Body::Content(body) => vec![FileShown {
            path: r.path.clone(),
            kind: r.kind,
            range: r.range,
            sha256: r.sha256.clone(),
            bytes: body.len() as u64,
            truncated: r.truncated,
        }],
        Body::Unchanged => Vec::new(),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let files = match placement {
                Placement::SystemMessage => refs.get(i).map(shown).unwrap_or_default(),
                Placement::Reminder => refs.iter().flat_map(shown).collect(),
                // Item 0 is the synthesized assistant item; results follow in mention order.
                Placement::ToolResult => i
                    .checked_sub(1)
                    .and_then(|n| refs.get(n))
                    .map(shown)
                    .unwrap_or_default(),
            };
            Entry::new(Source::FileRef, item).showing(files)
        })
        .collect()
}

/// The number of the synthesized `fileref-<n>` tool call `item` holds at most, if any.
pub fn max_call_number(item: &Item) -> Option<u64> {
    let Item::Assistant { tool_calls, .. } = item else {
        return None;
    };
    tool_calls
        .iter()
        .filter_map(|call| call.id.strip_prefix("fileref-")?.parse::<u64>().ok())
        .max()
}

#[cfg(test)]
#[path = "placement_tests.rs"]
mod tests;
