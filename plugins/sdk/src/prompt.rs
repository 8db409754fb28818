//! The submitted prompt as an interceptor sees it. From WIT 0.3.0 the host lends the prompt
//! for the call instead of copying it into the plugin: [`SubmittedPrompt`]'s fields are read
//! from the host the first time they are used (and kept for the rest of the call), and
//! [`SubmittedPrompt::contains`] searches the text on the host without copying it at all.

use std::cell::OnceCell;
use std::fmt;
use std::ops::Deref;

use crate::Item;
use crate::interceptor::bindings::warden::plugin::prompts::Prompt;

/// A value of the lent prompt, read from the host on first use. It derefs to the value
/// (`String` for `text` and `session`, `Vec<Item>` for `items`), so `prompt.text.contains(..)`,
/// `&prompt.text` as a `&str` and `prompt.items.iter()` work as on plain fields.
pub struct Lazy<'a, T> {
    cell: OnceCell<T>,
    source: Option<&'a Prompt>,
    read: fn(&Prompt) -> T,
}

impl<'a, T: Default> Lazy<'a, T> {
    fn lent(source: &'a Prompt, read: fn(&Prompt) -> T) -> Self {
        Self {
            cell: OnceCell::new(),
            source: Some(source),
            read,
        }
    }

    fn ready(value: T) -> Self {
        Self {
            cell: OnceCell::from(value),
            source: None,
            read: |_| T::default(),
        }
    }

    /// The value, read now if it was not yet.
    pub fn get(&self) -> &T {
        self.cell.get_or_init(|| match self.source {
            Some(prompt) => (self.read)(prompt),
            None => T::default(),
        })
    }

    /// The value, owned.
    pub fn into_inner(self) -> T {
        let _ = self.get();
        self.cell.into_inner().unwrap_or_default()
    }

    /// True once the value was read from the host (or was given).
    pub fn is_read(&self) -> bool {
        self.cell.get().is_some()
    }
}

impl<T: Default> Deref for Lazy<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.get()
    }
}

impl<T: Default + fmt::Debug> fmt::Debug for Lazy<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl fmt::Display for Lazy<'_, String> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl Lazy<'_, String> {
    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        self.get()
    }
}

impl PartialEq<str> for Lazy<'_, String> {
    fn eq(&self, other: &str) -> bool {
        self.get() == other
    }
}

impl PartialEq<&str> for Lazy<'_, String> {
    fn eq(&self, other: &&str) -> bool {
        self.get() == other
    }
}

impl PartialEq<String> for Lazy<'_, String> {
    fn eq(&self, other: &String) -> bool {
        self.get() == other
    }
}

impl AsRef<str> for Lazy<'_, String> {
    fn as_ref(&self) -> &str {
        self.get()
    }
}

/// What `on-prompt-submit` is asked to judge: the session, the prompt as typed, and the items
/// about to be committed (the user item, then file items). Each is read from the host when
/// first used.
pub struct SubmittedPrompt<'a> {
    /// Session id.
    pub session: Lazy<'a, String>,
    /// The prompt as typed.
    pub text: Lazy<'a, String>,
    /// Items about to be committed: the user item, then file items.
    pub items: Lazy<'a, Vec<Item>>,
    source: Option<&'a Prompt>,
}

impl<'a> SubmittedPrompt<'a> {
    /// The prompt the host lent for this call.
    #[doc(hidden)]
    pub fn lent(prompt: &'a Prompt) -> Self {
        Self {
            session: Lazy::lent(prompt, Prompt::session),
            text: Lazy::lent(prompt, Prompt::text),
            items: Lazy::lent(prompt, Prompt::items),
            source: Some(prompt),
        }
    }

    /// A prompt made of these values (for a plugin's own tests).
    pub fn from_parts(
        session: impl Into<String>,
        text: impl Into<String>,
        items: Vec<Item>,
    ) -> Self {
        Self {
            session: Lazy::ready(session.into()),
            text: Lazy::ready(text.into()),
            items: Lazy::ready(items),
            source: None,
        }
    }

    /// Byte offset of the first `needle` in the text. Searched by the host (nothing is copied
    /// into the plugin) unless the text was already read.
    pub fn find(&self, needle: &str) -> Option<usize> {
        match self.source {
            Some(prompt) if !self.text.is_read() => {
                prompt.find(needle).and_then(|at| usize::try_from(at).ok())
            }
            _ => self.text.find(needle),
        }
    }

    /// True when the text contains `needle` (see [`SubmittedPrompt::find`]).
    pub fn contains(&self, needle: &str) -> bool {
        self.find(needle).is_some()
    }

    /// Length of the text in bytes, asked of the host unless the text was already read.
    pub fn len(&self) -> usize {
        match self.source {
            Some(prompt) if !self.text.is_read() => prompt.len() as usize,
            _ => self.text.len(),
        }
    }

    /// True for an empty prompt.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for SubmittedPrompt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubmittedPrompt")
            .field("session", &self.session)
            .field("text", &self.text)
            .field("items", &self.items)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_from_parts_reads_like_fields() {
        let p = SubmittedPrompt::from_parts("s", "how do I deploy?", vec![Item::user("x")]);
        assert!(p.text.contains("deploy"));
        assert_eq!(p.text, "how do I deploy?");
        assert_eq!(p.text.as_str().len(), 16);
        assert_eq!(p.find("deploy"), Some(9));
        assert!(p.contains("I"));
        assert!(!p.contains("CI"));
        assert_eq!(p.len(), 16);
        assert_eq!(p.items.iter().map(Item::text).collect::<Vec<_>>(), ["x"]);
        let as_str: &str = &p.text;
        assert_eq!(as_str.trim(), "how do I deploy?");
        assert_eq!(format!("{}", p.session), "s");
        let owned: String = p.text.clone();
        assert_eq!(owned, "how do I deploy?");
    }
}
