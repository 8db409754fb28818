//! Known secret values masked at the sources of what a turn commits: the resolver's file
//! content (an `@` reference, a `read_file`, an MCP resource behind it) and, at commit, every
//! item but the person's own prompt (a plugin's addition, a hook's context, a notification).
//! Tool outputs are masked by the registry itself ([`crate::worker::ToolRegistry`]).

use std::borrow::Cow;
use std::sync::Arc;

use crate::domain::redact::Redactor;
use crate::domain::{FileChunk, Item, Listing, Resolve, ResolveError, ResolveRequest, Resolved};

/// A resolver whose content is masked.
pub(super) struct Redacting {
    inner: Box<dyn Resolve>,
    redactor: Arc<Redactor>,
}

impl Redacting {
    pub(super) fn new(inner: Box<dyn Resolve>, redactor: Arc<Redactor>) -> Self {
        Self { inner, redactor }
    }

    fn mask(&self, text: &mut String) {
        if let (Cow::Owned(masked), _) = self.redactor.mask(text) {
            *text = masked;
        }
    }
}

impl Resolve for Redacting {
    fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
        let mut resolved = self.inner.resolve(request)?;
        self.mask(&mut resolved.content);
        Ok(resolved)
    }

    fn read_file(
        &mut self,
        path: &str,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        let mut chunk = self.inner.read_file(path, offset, limit, max_bytes)?;
        self.mask(&mut chunk.content);
        Ok(chunk)
    }

    fn list_files(&mut self, path: &str, max_entries: u32) -> Result<Listing, ResolveError> {
        self.inner.list_files(path, max_entries)
    }

    fn new_turn(&mut self) {
        self.inner.new_turn();
    }
}

/// `item` with its text masked.
pub(super) fn item(redactor: &Redactor, item: Item) -> Item {
    let mask = |text: String| match redactor.mask(&text) {
        (Cow::Owned(masked), _) => masked,
        (Cow::Borrowed(_), _) => text,
    };
    match item {
        Item::User { text } => Item::User { text: mask(text) },
        Item::System { text } => Item::System { text: mask(text) },
        Item::Assistant { text, tool_calls } => Item::Assistant {
            text: mask(text),
            tool_calls,
        },
        Item::ToolResult {
            call_id,
            content,
            is_error,
        } => Item::ToolResult {
            call_id,
            content: mask(content),
            is_error,
        },
    }
}
