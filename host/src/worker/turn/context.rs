//! What fills the model's window: the next request's parts by kind, in bytes and estimated
//! tokens ([`BYTES_PER_TOKEN`]), for `/context` and `/status`.

use super::{BYTES_PER_TOKEN, PERSON_RAN, Worker};
use crate::domain::{Item, Source};
use crate::store::as_sent;

/// One kind of what the next request carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextPart {
    /// What it is (`system prompt`, `tool results`, …).
    pub kind: &'static str,
    /// How many items (1 for the system prompt and the tool list).
    pub items: usize,
    /// Its bytes.
    pub bytes: u64,
}

impl ContextPart {
    /// Its estimated tokens.
    pub fn tokens(&self) -> u64 {
        self.bytes.div_ceil(BYTES_PER_TOKEN)
    }
}

/// The kinds, in the order they are listed.
const KINDS: [&str; 9] = [
    "system prompt",
    "tool definitions",
    "project instructions",
    "your prompts",
    "files attached",
    "answers",
    "tool results",
    "your commands (!)",
    "other context",
];

/// The kind of a history item, by who produced it and what it is.
fn kind_of(source: &Source, item: &Item) -> &'static str {
    match (source, item) {
        (Source::Project, _) => KINDS[2],
        (Source::User, _) => KINDS[3],
        (Source::FileRef, _) => KINDS[4],
        (_, Item::Assistant { .. }) => KINDS[5],
        (_, Item::ToolResult { .. }) => KINDS[6],
        (Source::Host, Item::System { text }) if text.starts_with(PERSON_RAN) => KINDS[7],
        _ => KINDS[8],
    }
}

impl Worker {
    /// What the next request would carry, kind by kind (kinds with nothing left out): the
    /// system prompt, the tool definitions, and the history it is built from (what follows the
    /// latest compaction).
    pub fn context_parts(&self) -> Vec<ContextPart> {
        let mut parts: Vec<ContextPart> = KINDS
            .iter()
            .map(|kind| ContextPart {
                kind,
                items: 0,
                bytes: 0,
            })
            .collect();
        parts[0].items = 1;
        parts[0].bytes = self.system_prompt().len() as u64;
        let specs = self.tools.specs();
        parts[1].items = specs.len();
        parts[1].bytes = specs
            .iter()
            .map(|s| serde_json::to_string(s).map_or(0, |t| t.len() as u64))
            .sum();
        for record in as_sent(self.writer.records()) {
            let kind = kind_of(&record.source, &record.item);
            if let Some(part) = parts.iter_mut().find(|p| p.kind == kind) {
                part.items += 1;
                part.bytes += record.item.byte_len() as u64;
            }
        }
        parts.retain(|p| p.items > 0);
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_told_apart_by_source_and_kind() {
        assert_eq!(kind_of(&Source::User, &Item::user("hi")), "your prompts");
        assert_eq!(
            kind_of(&Source::FileRef, &Item::system("a")),
            "files attached"
        );
        assert_eq!(
            kind_of(
                &Source::Host,
                &Item::system(format!("{PERSON_RAN} (exit 0)"))
            ),
            "your commands (!)"
        );
        assert_eq!(
            kind_of(&Source::Host, &Item::system("undo")),
            "other context"
        );
        assert_eq!(kind_of(&Source::Provider, &Item::assistant("a")), "answers");
        let part = ContextPart {
            kind: KINDS[0],
            items: 1,
            bytes: 9,
        };
        assert_eq!(part.tokens(), 3);
    }
}
