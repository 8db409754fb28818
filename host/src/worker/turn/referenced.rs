//! Which files a compaction reads again: those the person referenced with `@` and those the
//! model's own file tool calls read — never a file named only by a plugin's items, nor by a
//! call that was denied or left unrun.

use std::collections::HashSet;

use crate::domain::{FileShown, Item, LineRange, Source, result_shows_run};
use crate::store::Record;

/// A file referenced in the compacted range, to be read again.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Referenced {
    pub(super) path: String,
    pub(super) range: Option<LineRange>,
}

/// Every file the person referenced or a real file tool call read, in first-mention order,
/// once each: the files the host's own `@` items show (by their file metadata, in any
/// placement) and earlier compactions' re-reads, and the `path` of every `read_file` /
/// `list_files` call the model made (`provider` items) that ran. Never a file named only by
/// a plugin's items (a made-up `read_file` call of `continue-with`), nor by a call that was
/// denied or left unrun: re-reading those would show the model what nobody let it read.
pub(super) fn referenced_files(records: &[Record]) -> Vec<Referenced> {
    // The model's calls whose result shows that they ran.
    let ran: HashSet<&str> = records
        .iter()
        .filter(|r| r.source == Source::Tool)
        .filter_map(|r| match &r.item {
            Item::ToolResult {
                call_id,
                content,
                is_error,
            } if result_shows_run(content, *is_error) => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut add = |r: Referenced| {
        if seen.insert(r.clone()) {
            out.push(r);
        }
    };
    for record in records {
        if matches!(record.source, Source::FileRef | Source::Compaction) {
            for FileShown { path, range, .. } in &record.files {
                add(Referenced {
                    path: path.clone(),
                    range: *range,
                });
            }
        }
        if record.source != Source::Provider {
            continue;
        }
        if let Item::Assistant { tool_calls, .. } = &record.item {
            for call in tool_calls {
                if !matches!(call.name.as_str(), "read_file" | "list_files")
                    || !ran.contains(call.id.as_str())
                {
                    continue;
                }
                if let Some(path) = call.arguments.get("path").and_then(|p| p.as_str()) {
                    add(Referenced {
                        path: path.to_owned(),
                        range: None,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{EntryKind, ToolCall};

    fn record(seq: u64, source: Source, item: Item, files: Vec<FileShown>) -> Record {
        Record {
            seq,
            group: seq,
            source,
            ts: std::time::SystemTime::UNIX_EPOCH,
            item,
            origin: None,
            files,
            compaction: None,
            usage: None,
        }
    }

    fn shown(path: &str) -> FileShown {
        FileShown {
            path: path.into(),
            kind: EntryKind::File,
            range: None,
            sha256: String::new(),
            bytes: 0,
            truncated: false,
        }
    }

    fn call(id: &str, name: &str, path: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: serde_json::json!({ "path": path }),
        }
    }

    fn calls(source: Source, seq: u64, calls: Vec<ToolCall>) -> Record {
        let item = Item::Assistant {
            text: String::new(),
            tool_calls: calls,
        };
        record(seq, source, item, Vec::new())
    }

    fn result(seq: u64, source: Source, id: &str, content: &str, is_error: bool) -> Record {
        let item = Item::ToolResult {
            call_id: id.into(),
            content: content.into(),
            is_error,
        };
        record(seq, source, item, Vec::new())
    }

    #[test]
    fn referenced_files_are_the_persons_and_the_calls_that_ran_once_each() {
        let plugin = || Source::Plugin("forger".into());
        let records = vec![
            record(1, Source::FileRef, Item::system("a"), vec![shown("a.txt")]),
            // A plugin's item cannot claim to show a file, nor make one up with a call.
            record(2, plugin(), Item::system("p"), vec![shown("claimed.txt")]),
            calls(plugin(), 3, vec![call("f1", "read_file", "planted.txt")]),
            result(4, plugin(), "f1", "made up", false),
            calls(
                Source::Provider,
                5,
                vec![
                    call("c1", "read_file", "b.txt"),
                    call("c2", "list_files", "src"),
                    call("c3", "other", "x"),
                    call("c4", "read_file", "denied.txt"),
                    call("c5", "read_file", "unrun.txt"),
                    call("c6", "read_file", "missing.txt"),
                ],
            ),
            result(6, Source::Tool, "c1", "b", false),
            result(6, Source::Tool, "c2", "src/", false),
            result(6, Source::Tool, "c3", "x", false),
            result(
                6,
                Source::Tool,
                "c4",
                "tool call denied by plugin:guard: no",
                true,
            ),
            result(
                6,
                Source::Tool,
                "c5",
                "tool call not run: the turn stopped",
                true,
            ),
            // A call that ran and failed still names a file the model asked for.
            result(6, Source::Tool, "c6", "not found", true),
            record(
                7,
                Source::Compaction,
                Item::system("a"),
                vec![shown("a.txt")],
            ),
        ];
        let paths: Vec<String> = referenced_files(&records)
            .into_iter()
            .map(|r| r.path)
            .collect();
        assert_eq!(paths, ["a.txt", "b.txt", "src", "missing.txt"]);
    }
}
