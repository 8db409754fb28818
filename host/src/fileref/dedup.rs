//! Deduplication: which files a session has already shown, by label (path and range) and
//! sha256 of the body placed. Rebuilt from history, so it survives a resume.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::placement;
use crate::worker::{Item, Source};

/// Files already shown in a session, and the next synthesized tool call number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownFiles {
    by_label: HashMap<String, [u8; 32]>,
    next_call: u64,
}

impl ShownFiles {
    /// Nothing shown yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// What a history shows (items with source `fileref`, in any placement).
    pub fn from_history(items: &[(Source, Item)]) -> Self {
        let mut shown = Self::new();
        shown.record(items);
        shown
    }

    /// Take newly committed items into account.
    pub fn record(&mut self, items: &[(Source, Item)]) {
        let (files, max_call) = placement::shown_in(items);
        for file in files {
            self.remember(&file.label, &file.body);
        }
        if let Some(n) = max_call {
            self.next_call = self.next_call.max(n + 1);
        }
    }

    /// Whether `label` was shown with exactly `body`.
    pub fn is_unchanged(&self, label: &str, body: &str) -> bool {
        self.by_label.get(label) == Some(&digest(body))
    }

    /// Remember that `label` is shown with `body`.
    pub fn remember(&mut self, label: &str, body: &str) {
        self.by_label.insert(label.to_owned(), digest(body));
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
