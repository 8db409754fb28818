//! The submitted prompt lent to an interceptor for one `on-prompt-submit` call (WIT 0.3.0's
//! `prompts.prompt` resource). The host keeps the prompt in the plugin's store for the call;
//! the guest reads what it needs through the resource's methods. The copy is written over the
//! last one, so a call allocates nothing on the host for the prompt; past 64 KiB the buffers are
//! let go after the call.

use crate::domain::{Item, SubmittedPrompt};

/// A prompt larger than this (text and items) is not held on to after its call.
const KEEP_BYTES: usize = 64 << 10;

/// A needle longer than this is searched for without keeping its searcher.
const KEEP_NEEDLE_BYTES: usize = 256;

/// The prompt lent for the current call, or the buffers of the last one.
#[derive(Debug, Default)]
pub struct LentPrompt {
    session: String,
    text: String,
    items: Vec<Item>,
    /// The searcher of the last needle: a plugin looks for the same words call after call.
    finder: Option<memchr::memmem::Finder<'static>>,
}

fn refill(s: &mut String, from: &str) {
    s.clear();
    s.push_str(from);
}

impl LentPrompt {
    /// Lend `p`: copy it over the last prompt, reusing its buffers.
    pub(crate) fn lend(&mut self, p: &SubmittedPrompt) {
        refill(&mut self.session, &p.session);
        refill(&mut self.text, &p.text);
        self.items.truncate(p.items.len());
        for (i, item) in p.items.iter().enumerate() {
            match (self.items.get_mut(i), item) {
                (Some(Item::User { text: s }), Item::User { text })
                | (Some(Item::System { text: s }), Item::System { text }) => refill(s, text),
                (Some(slot), _) => *slot = item.clone(),
                (None, _) => self.items.push(item.clone()),
            }
        }
    }

    /// The call is over: let a large prompt's buffers go.
    pub(crate) fn end(&mut self) {
        let held = self.text.len() + self.items.iter().map(Item::byte_len).sum::<usize>();
        if held > KEEP_BYTES {
            let finder = self.finder.take();
            *self = Self {
                finder,
                ..Self::default()
            };
        }
    }

    /// Session id.
    pub(crate) fn session(&self) -> &str {
        &self.session
    }

    /// The prompt as typed.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Items about to be committed.
    pub(crate) fn items(&self) -> &[Item] {
        &self.items
    }

    /// Length of the text in bytes (saturating at `u32::MAX`).
    pub(crate) fn len(&self) -> u32 {
        u32::try_from(self.text.len()).unwrap_or(u32::MAX)
    }

    /// Byte offset of the first `needle` in the text (a vectorised search: a plugin that only
    /// looks for a word pays for no copy and no slow scan).
    pub(crate) fn find(&mut self, needle: &str) -> Option<u32> {
        if needle.len() > KEEP_NEEDLE_BYTES {
            return memchr::memmem::find(self.text.as_bytes(), needle.as_bytes())
                .and_then(|at| u32::try_from(at).ok());
        }
        let finder = match &self.finder {
            Some(finder) if finder.needle() == needle.as_bytes() => finder,
            _ => self
                .finder
                .insert(memchr::memmem::Finder::new(needle.as_bytes()).into_owned()),
        };
        finder
            .find(self.text.as_bytes())
            .and_then(|at| u32::try_from(at).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(text: &str, items: Vec<Item>) -> SubmittedPrompt {
        SubmittedPrompt {
            session: format!("s-{}", text.len()),
            text: text.to_owned(),
            items,
        }
    }

    /// After every lend the copy is exactly the prompt: more items, fewer, another kind at the
    /// same place, an empty prompt, one over the size kept.
    #[test]
    fn a_lent_prompt_is_the_prompt_each_time() {
        let sequence = [
            prompt("first", vec![Item::user("first"), Item::system("file a")]),
            prompt("longer second", vec![Item::user("longer second")]),
            prompt(
                "third",
                vec![Item::assistant("a"), Item::system("b"), Item::user("c")],
            ),
            prompt("", Vec::new()),
            prompt(
                &"x".repeat(100 << 10),
                vec![Item::user("x".repeat(100 << 10))],
            ),
            prompt("after", vec![Item::system("s"), Item::user("after")]),
        ];
        let mut lent = LentPrompt::default();
        for p in &sequence {
            lent.lend(p);
            assert_eq!(lent.session(), p.session);
            assert_eq!(lent.text(), p.text);
            assert_eq!(lent.items(), p.items.as_slice());
            assert_eq!(lent.len() as usize, p.text.len());
            lent.end();
        }
        assert!(lent.text.capacity() < KEEP_BYTES);
    }

    #[test]
    fn find_gives_the_byte_offset_or_none() {
        let mut lent = LentPrompt::default();
        lent.lend(&prompt("héllo deploy now", Vec::new()));
        assert_eq!(lent.find("deploy"), Some(7));
        assert_eq!(lent.find(""), Some(0));
        assert_eq!(lent.find("Deploy"), None);
        // The searcher kept for the last needle follows each new needle and each new prompt.
        assert_eq!(lent.find("now"), Some(14));
        assert_eq!(lent.find("deploy"), Some(7));
        lent.lend(&prompt("deploy", Vec::new()));
        assert_eq!(lent.find("deploy"), Some(0));
        lent.lend(&prompt(&"x".repeat(100 << 10), Vec::new()));
        lent.end();
        lent.lend(&prompt("no", Vec::new()));
        assert_eq!(lent.find("deploy"), None);
        assert_eq!(lent.find("no"), Some(0));
        let long = "n".repeat(KEEP_NEEDLE_BYTES + 1);
        assert_eq!(lent.find(&long), None);
        assert_eq!(lent.find("no"), Some(0));
    }
}
