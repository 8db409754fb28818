//! Entry point of the plugin-boundary fuzz target (`fuzz/`): arbitrary WIT values, as a guest
//! could return them, decoded from bytes and passed through the conversions and the caps the
//! host applies to them. Not part of the host's API.

use super::v0_1_0::convert;
use super::v0_1_0::types as wit;
use crate::plugin::limits::MAX_PLUGIN_STRING;
use crate::plugin::resolver_caps;

/// Reads values from fuzz input; runs out gracefully (empty strings, zeros).
struct Input<'a> {
    data: &'a [u8],
}

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.data.split_first() else {
            return 0;
        };
        self.data = rest;
        b
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    fn string(&mut self) -> String {
        // Length in one byte, times a factor from another: short strings mostly, long ones too.
        let len = usize::from(self.byte()) * (1 + usize::from(self.byte() % 4) * 255);
        let len = len.min(self.data.len());
        let (s, rest) = self.data.split_at(len);
        self.data = rest;
        String::from_utf8_lossy(s).into_owned()
    }

    fn item(&mut self) -> wit::Item {
        match self.byte() % 4 {
            0 => wit::Item::User(self.string()),
            1 => wit::Item::System(self.string()),
            2 => {
                let text = self.string();
                let calls = (0..self.byte() % 4)
                    .map(|_| wit::ToolCall {
                        id: self.string(),
                        name: self.string(),
                        arguments: self.string(),
                    })
                    .collect();
                wit::Item::Assistant(wit::AssistantItem {
                    text,
                    tool_calls: calls,
                })
            }
            _ => wit::Item::ToolResult(wit::ToolResultItem {
                call_id: self.string(),
                content: self.string(),
                is_error: self.byte().is_multiple_of(2),
            }),
        }
    }

    fn resolve_error(&mut self) -> wit::ResolveError {
        let m = self.string();
        match self.byte() % 7 {
            0 => wit::ResolveError::OutOfScope(m),
            1 => wit::ResolveError::NotFound(m),
            2 => wit::ResolveError::Denied(m),
            3 => wit::ResolveError::Binary(m),
            4 => wit::ResolveError::Special(m),
            5 => wit::ResolveError::TooLarge(m),
            _ => wit::ResolveError::Io(m),
        }
    }
}

/// One fuzz case: decodes a guest answer from `data`, converts it and holds it to the caps.
/// Panics only on a bug (a conversion that panics, or a checked answer that breaks a cap).
pub fn boundary(data: &[u8]) {
    let mut input = Input { data };
    let max_bytes = u64::from(input.u32() % (1 << 20));
    let max_entries = input.u32() % 100_000;
    let max_output = 1 << 20;
    match input.byte() % 6 {
        0 => {
            let items: Vec<wit::Item> = (0..input.byte() % 8).map(|_| input.item()).collect();
            let action = match input.byte() % 3 {
                0 => wit::PromptAction::Continue,
                1 => wit::PromptAction::Cancel(input.string()),
                _ => wit::PromptAction::ContinueWith(items),
            };
            if let crate::domain::PromptDecision::Cancel(reason) =
                convert::prompt_action_from_wit(action)
            {
                assert!(reason.len() <= MAX_PLUGIN_STRING);
                assert!(!reason.chars().any(crate::domain::escape::is_unsafe));
            }
        }
        1 => {
            let item = input.item();
            let back = convert::item_to_wit(&convert::item_from_wit(item.clone()));
            // Text survives the round trip (arguments may be re-encoded JSON).
            if let (wit::Item::System(a), wit::Item::System(b)) = (&item, &back) {
                assert_eq!(a, b);
            }
        }
        2 => {
            let resolved = wit::Resolved {
                path: input.string(),
                kind: if input.byte().is_multiple_of(2) {
                    wit::EntryKind::File
                } else {
                    wit::EntryKind::Directory
                },
                content: input.string(),
                total_bytes: u64::from(input.u32()),
                truncated: input.byte().is_multiple_of(2),
            };
            if resolver_caps::check_resolved(&resolved, max_bytes, max_output).is_ok() {
                assert!(resolved.content.len() as u64 <= max_bytes + resolver_caps::CONTENT_MARGIN);
                let _ = convert::resolved_from_wit(resolved);
            }
        }
        3 => {
            let listing = wit::Listing {
                path: input.string(),
                entries: (0..input.byte()).map(|_| input.string()).collect(),
                truncated: input.byte().is_multiple_of(2),
            };
            if resolver_caps::check_listing(&listing, max_entries, max_output).is_ok() {
                assert!(listing.entries.len() as u64 <= u64::from(max_entries));
                let _ = convert::listing_from_wit(listing);
            }
        }
        4 => {
            let chunk = wit::FileChunk {
                path: input.string(),
                content: input.string(),
                first_line: input.u32(),
                lines: input.u32(),
                total_lines: input.u32(),
                more: input.byte().is_multiple_of(2),
            };
            if resolver_caps::check_chunk(&chunk, max_bytes, max_output).is_ok() {
                let _ = convert::chunk_from_wit(chunk);
            }
        }
        _ => {
            let err = input.resolve_error();
            let ok = resolver_caps::check_error(&err).is_ok();
            let converted = convert::resolve_error_from_wit(err);
            let text = converted.to_string();
            assert!(!text.contains('\n'), "{text:?}");
            let _ = ok;
        }
    }
}
