//! Deduplication: which files a session has already shown, by label (path and range) and
//! sha256 of the body placed. Rebuilt from the file metadata history records carry
//! ([`FileShown`]), so it survives a resume; records written before metadata existed show no
//! files, so their files are shown once more in full.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::placement;
use crate::domain::{Entry, FileShown, Item, Source};

/// Files already shown in a session, and the next synthesized tool call number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownFiles {
    by_label: HashMap<String, String>,
    next_call: u64,
}

impl ShownFiles {
    /// Nothing shown yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// What a history shows (entries with source `fileref`, in any placement).
    pub fn from_history<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Self {
        let mut shown = Self::new();
        shown.record(entries);
        shown
    }

    /// Take newly committed entries into account: the files their metadata records, and the
    /// synthesized tool-call numbers they use.
    pub fn record<'a>(&mut self, entries: impl IntoIterator<Item = &'a Entry>) {
        for entry in entries {
            self.record_files(&entry.source, &entry.item, &entry.files);
        }
    }

    /// Take one committed item into account (a history record's parts).
    pub fn record_files(&mut self, source: &Source, item: &Item, files: &[FileShown]) {
        if *source != Source::FileRef {
            return;
        }
        for file in files {
            self.remember_shown(file);
        }
        if let Some(n) = placement::max_call_number(item) {
            self.next_call = self.next_call.max(n + 1);
        }
    }

    /// Whether `label` was shown with exactly `body`.
    pub fn is_unchanged(&self, label: &str, body: &str) -> bool {
        self.is_unchanged_digest(label, &digest_hex(body))
    }

    /// Whether `label` was shown with content of sha256 (hex) `digest`.
    pub fn is_unchanged_digest(&self, label: &str, digest: &str) -> bool {
        self.by_label.get(label).is_some_and(|d| d == digest)
    }

    /// Remember that `label` is shown with `body`.
    pub fn remember(&mut self, label: &str, body: &str) {
        self.remember_digest(label, digest_hex(body));
    }

    /// Remember that `label` is shown with content of sha256 (hex) `digest`.
    pub fn remember_digest(&mut self, label: &str, digest: String) {
        self.by_label.insert(label.to_owned(), digest);
    }

    fn remember_shown(&mut self, file: &FileShown) {
        let label = placement::label(&file.path, file.kind, file.range);
        self.by_label.insert(label, file.sha256.clone());
    }

    /// Number for the next synthesized `fileref-<n>` tool call.
    pub fn next_call(&self) -> u64 {
        self.next_call
    }

    /// Reserve `count` call numbers.
    pub fn advance_calls(&mut self, count: u64) {
        self.next_call += count;
    }

    /// Files remembered.
    pub fn len(&self) -> usize {
        self.by_label.len()
    }

    /// Nothing remembered.
    pub fn is_empty(&self) -> bool {
        self.by_label.is_empty()
    }
}

/// sha256 of `body`.
pub fn digest(body: &str) -> [u8; 32] {
    Sha256::digest(body.as_bytes()).into()
}

/// sha256 of `body`, hex.
pub fn digest_hex(body: &str) -> String {
    hex::encode(digest(body))
}
