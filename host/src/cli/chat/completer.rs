//! `@` completion in the editor: the mention under the cursor, ranked against the workspace
//! index as it is typed, and the MCP servers' resources (`@server:uri`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use reedline::{Completer, CompletionResult, Span, Suggestion};

use super::mention::{insertion, partial_at};
use crate::complete::{BackgroundIndex, Kind, Ranker};

/// Suggestions shown at once.
const MENU_SIZE: usize = 12;

/// How long the first completion asked for while the index is still being built waits for it,
/// rather than offering no file (an `@` typed just after start). Only the first one waits: the
/// listing of a large tree takes longer, and keystrokes must not stall while it runs.
const INDEX_WAIT: Duration = Duration::from_millis(300);

/// Completes `@` mentions from a [`BackgroundIndex`] (no file is offered until it is built;
/// the first completion asked for meanwhile waits up to [`INDEX_WAIT`] for it)
/// and from the started MCP servers' resources.
pub(crate) struct MentionCompleter {
    index: BackgroundIndex,
    /// Keeps the previous mention's candidates, so that each keystroke narrows them.
    ranker: Mutex<Ranker>,
    /// `server:uri` of every resource the started servers listed.
    resources: Vec<String>,
    /// Whether a completion has already waited for the index.
    waited: AtomicBool,
}

impl MentionCompleter {
    /// A completer over `index` and `resources` (`server:uri`).
    pub(crate) fn new(index: BackgroundIndex, resources: Vec<String>) -> Self {
        Self {
            index,
            ranker: Mutex::default(),
            resources,
            waited: AtomicBool::new(false),
        }
    }

    /// The resources `query` names: those it begins, then those holding it (case folded),
    /// shortest first within each; none for an empty query, so a bare `@` lists files.
    fn matching_resources(&self, query: &str) -> Vec<&str> {
        if query.is_empty() {
            return Vec::new();
        }
        let query = query.to_lowercase();
        let mut found: Vec<(bool, &str)> = self
            .resources
            .iter()
            .filter_map(|r| {
                let lower = r.to_lowercase();
                if lower.starts_with(&query) {
                    Some((false, r.as_str()))
                } else {
                    lower.contains(&query).then_some((true, r.as_str()))
                }
            })
            .collect();
        found.sort_by_key(|(inner, r)| (*inner, r.len(), *r));
        found.into_iter().map(|(_, r)| r).take(MENU_SIZE).collect()
    }

    /// The suggestions for the cursor at byte `pos` of `line`.
    pub(crate) fn suggest(&self, line: &str, pos: usize) -> Vec<Suggestion> {
        let Some(partial) = partial_at(line, pos) else {
            return Vec::new();
        };
        let span = Span::new(partial.start, pos);
        // A resource named by its server first (`@docs:`), files after it.
        let mut out: Vec<Suggestion> = self
            .matching_resources(&partial.query)
            .into_iter()
            .map(|r| Suggestion {
                value: insertion(r, false),
                display_override: Some(r.to_owned()),
                span,
                append_whitespace: true,
                ..Suggestion::default()
            })
            .collect();
        let index = if self.waited.swap(true, Ordering::Relaxed) {
            self.index.get()
        } else {
            self.index.get_within(INDEX_WAIT)
        };
        if let Some(index) = index {
            let room = MENU_SIZE.saturating_sub(out.len());
            let mut ranker = self.ranker.lock().unwrap_or_else(PoisonError::into_inner);
            let ranked = ranker.rank(&index, &partial.query, room);
            out.extend(ranked.into_iter().map(|m| {
                let is_dir = m.entry.kind == Kind::Dir;
                Suggestion {
                    value: insertion(m.entry.path, is_dir),
                    display_override: Some(m.entry.display()),
                    span,
                    append_whitespace: !is_dir,
                    ..Suggestion::default()
                }
            }));
        }
        out
    }
}

impl Completer for MentionCompleter {
    fn complete(&mut self, line: &str, pos: usize) -> CompletionResult {
        CompletionResult::fresh(self.suggest(line, pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_quoted_paths_replacing_the_mention() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("my notes.md"), "x").unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "x").unwrap();
        let index = BackgroundIndex::spawn(dir.path().to_owned(), Vec::new());
        index.wait().unwrap();
        let completer = MentionCompleter::new(index, Vec::new());
        let line = "read @my";
        let found = completer.suggest(line, line.len());
        assert_eq!(found[0].value, "@\"my notes.md\"");
        assert_eq!(found[0].span, Span::new(5, 8));
        assert!(found[0].append_whitespace);
        let found = completer.suggest("@sr", 3);
        assert_eq!(found[0].value, "@src/");
        assert!(!found[0].append_whitespace);
        let found = completer.suggest("@src/", 5);
        assert_eq!(found[0].value, "@src/main.rs");
        assert!(completer.suggest("no mention", 3).is_empty());
    }

    #[test]
    fn offers_the_servers_resources_named_by_server_or_part_of_the_uri() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("docs.md"), "x").unwrap();
        let index = BackgroundIndex::spawn(dir.path().to_owned(), Vec::new());
        index.wait().unwrap();
        let resources = vec![
            "docs:note://x".to_owned(),
            "docs:note://longer".to_owned(),
            "other:file:///features.md".to_owned(),
        ];
        let completer = MentionCompleter::new(index, resources);
        // By server: its resources first, quoted so that they parse back whole; files after.
        let found = completer.suggest("see @docs", 9);
        let values: Vec<&str> = found.iter().map(|s| s.value.as_str()).collect();
        assert_eq!(
            values,
            ["@\"docs:note://x\"", "@\"docs:note://longer\"", "@docs.md"]
        );
        assert_eq!(found[0].span, Span::new(4, 9));
        assert!(found[0].append_whitespace);
        // By part of the URI, case folded.
        let found = completer.suggest("@FEATURES", 9);
        assert_eq!(found[0].value, "@\"other:file:///features.md\"");
        // A bare `@` lists files only.
        let found = completer.suggest("@", 1);
        assert!(found.iter().all(|s| !s.value.contains(':')), "{found:?}");
    }
}
