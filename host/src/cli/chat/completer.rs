//! `@` completion in the editor: the mention under the cursor, ranked against the workspace
//! index as it is typed.

use reedline::{Completer, CompletionResult, Span, Suggestion};

use super::mention::{insertion, partial_at};
use crate::complete::{BackgroundIndex, Kind, rank};

/// Suggestions shown at once.
const MENU_SIZE: usize = 12;

/// Completes `@` mentions from a [`BackgroundIndex`] (nothing is offered until it is built).
pub(crate) struct MentionCompleter {
    index: BackgroundIndex,
}

impl MentionCompleter {
    /// A completer over `index`.
    pub(crate) fn new(index: BackgroundIndex) -> Self {
        Self { index }
    }

    /// The suggestions for the cursor at byte `pos` of `line`.
    pub(crate) fn suggest(&self, line: &str, pos: usize) -> Vec<Suggestion> {
        let Some(partial) = partial_at(line, pos) else {
            return Vec::new();
        };
        let Some(index) = self.index.get() else {
            return Vec::new();
        };
        rank(&index, &partial.query, MENU_SIZE)
            .into_iter()
            .map(|m| {
                let is_dir = m.entry.kind == Kind::Dir;
                Suggestion {
                    value: insertion(&m.entry.path, is_dir),
                    display_override: Some(m.entry.display()),
                    span: Span::new(partial.start, pos),
                    append_whitespace: !is_dir,
                    ..Suggestion::default()
                }
            })
            .collect()
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
        let completer = MentionCompleter::new(index);
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
}
