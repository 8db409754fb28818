//! One item on its way into history and back out: the [`Item`], who produced it, the files it
//! shows ([`FileShown`]) and the inbox id it was made from. The same shape is built by the
//! stages of a turn, committed by the store and read back from it.

use serde::{Deserialize, Serialize};

use super::compaction::CompactionMarker;
use super::item::{Item, Source};
use super::resolve::EntryKind;
use super::segment::LineRange;
use super::usage::Usage;

/// A file (or directory listing) whose content an item shows: recorded with the item so that
/// dedup and compaction never parse rendered text back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileShown {
    /// Normalised path from the resolver.
    pub path: String,
    /// File or directory.
    pub kind: EntryKind,
    /// Line range shown, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<LineRange>,
    /// sha256 (hex) of the content shown.
    pub sha256: String,
    /// Bytes of the content shown.
    pub bytes: u64,
    /// The content was cut.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// An item with everything the host records about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Who produced the item.
    pub source: Source,
    /// The item.
    pub item: Item,
    /// Files whose content the item shows (file items only).
    pub files: Vec<FileShown>,
    /// Id of what this item was made from (a notification id), recorded so that it is
    /// committed at most once.
    pub origin: Option<String>,
    /// Set on the marker of a compaction group: the range the group replaces.
    pub compaction: Option<CompactionMarker>,
    /// On a model answer: the tokens its request and answer took, as the provider reported.
    pub usage: Option<Usage>,
}

impl Entry {
    /// An entry without files or origin.
    pub fn new(source: Source, item: Item) -> Self {
        Self {
            source,
            item,
            files: Vec::new(),
            origin: None,
            compaction: None,
            usage: None,
        }
    }

    /// The marker of a compaction group: a system note naming the range it replaces.
    pub fn compaction_marker(replaces: CompactionMarker) -> Self {
        let text = format!(
            "[compaction: items {}–{} are replaced by the summary below]",
            replaces.from, replaces.to
        );
        Self {
            compaction: Some(replaces),
            ..Self::new(Source::Compaction, Item::system(text))
        }
    }

    /// The same entry, recording the tokens its answer took.
    pub fn with_usage(mut self, usage: Option<Usage>) -> Self {
        self.usage = usage;
        self
    }

    /// The same entry, recording that it shows `files`.
    pub fn showing(mut self, files: Vec<FileShown>) -> Self {
        self.files = files;
        self
    }
}

impl From<(Source, Item)> for Entry {
    fn from((source, item): (Source, Item)) -> Self {
        Self::new(source, item)
    }
}
