//! What a person submits: typed text and `@path` references ([`Segment`]), with optional
//! [`LineRange`]s.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An inclusive, 1-based line range (`#L10-20`; `#L10` is `10..=10`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LineRange {
    /// First line, 1-based.
    pub start: u32,
    /// Last line, inclusive.
    pub end: u32,
}

impl fmt::Display for LineRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start == self.end {
            write!(f, "#L{}", self.start)
        } else {
            write!(f, "#L{}-{}", self.start, self.end)
        }
    }
}

/// One piece of a submitted prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Segment {
    /// Plain text, sent as typed.
    Text {
        /// The text.
        text: String,
    },
    /// A reference to a file or directory in the workspace.
    FileRef {
        /// The mention exactly as typed (`@"my notes.md"#L3`).
        raw: String,
        /// The path it names, unquoted and unescaped.
        path: String,
        /// Optional line range.
        range: Option<LineRange>,
    },
}

impl Segment {
    /// The prompt exactly as typed: text segments and raw mentions, in order.
    pub fn typed(segments: &[Segment]) -> String {
        segments
            .iter()
            .map(|s| match s {
                Segment::Text { text } => text.as_str(),
                Segment::FileRef { raw, .. } => raw.as_str(),
            })
            .collect()
    }
}
