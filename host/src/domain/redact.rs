//! Exact secret values masked wherever they would leave: every occurrence of a known value in
//! a text is replaced by `[REDACTED:NAME]` — the value as it is, inside a longer token, its
//! base64 (standard and URL-safe, at every alignment inside a longer base64 run), its URL
//! encoding, and the value split across a line break. Values shorter than [`MIN_BYTES`] are not
//! masked: too many ordinary strings would match.
//!
//! One Aho-Corasick automaton holds every form of every value, so that a text is read once
//! (twice when it has line breaks: the second time without them).

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use base64::Engine as _;

/// Shortest value masked, in bytes.
pub const MIN_BYTES: usize = 8;

/// What a text held: each secret's name and how many times it was masked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Masked {
    /// `(name, count)`, in the order the secrets were given.
    pub counts: Vec<(String, usize)>,
}

impl Masked {
    /// Nothing was masked.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Every occurrence masked.
    pub fn total(&self) -> usize {
        self.counts.iter().map(|(_, n)| n).sum()
    }
}

/// The masker of one set of known values.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    names: Vec<String>,
    /// For each pattern of the automaton, the secret it belongs to.
    owner: Vec<usize>,
    automaton: Option<AhoCorasick>,
    /// A value holds a line break (then the text is also read as it is).
    multiline: bool,
    /// Names of the values left out for being short.
    short: Vec<String>,
}

impl Redactor {
    /// A masker of `secrets` (`(name, value)`); values under [`MIN_BYTES`] are left out (see
    /// [`Redactor::too_short`]), and a value given twice under two names is masked by the first.
    pub fn new(secrets: impl IntoIterator<Item = (String, String)>) -> Self {
        let mut names = Vec::new();
        let mut short = Vec::new();
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut owner = Vec::new();
        let mut multiline = false;
        for (name, value) in secrets {
            if value.len() < MIN_BYTES {
                if !value.is_empty() {
                    short.push(name);
                }
                continue;
            }
            let index = names.len();
            names.push(name);
            multiline |= value.contains(['\n', '\r']);
            for form in forms(value.as_bytes()) {
                if form.len() >= MIN_BYTES && !patterns.contains(&form) {
                    patterns.push(form);
                    owner.push(index);
                }
            }
        }
        let automaton = if patterns.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .kind(Some(AhoCorasickKind::DFA))
                .prefilter(false)
                .build(&patterns)
                .ok()
        };
        Self {
            names,
            owner,
            automaton,
            multiline,
            short,
        }
    }

    /// The names of the values masked.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The names whose values are too short to mask.
    pub fn too_short(&self) -> &[String] {
        &self.short
    }

    /// No value to mask.
    pub fn is_empty(&self) -> bool {
        self.automaton.is_none()
    }

    /// `text` with every known value masked, and what was.
    pub fn mask<'a>(&self, text: &'a str) -> (Cow<'a, str>, Masked) {
        let Some(automaton) = &self.automaton else {
            return (Cow::Borrowed(text), Masked::default());
        };
        // Spans `(start, end, secret)` in `text`: from the text as it reads without its line
        // breaks (which finds a value split across one, and every other one too), from the
        // text as it is when a value holds a line break itself or the text has none, and
        // from the text with its `%XX` escapes decoded; mapped back to the bytes they came from.
        let breaks = memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_some();
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        if !breaks || self.multiline {
            spans.extend(
                automaton
                    .find_iter(text)
                    .map(|m| (m.start(), m.end(), self.owner[m.pattern().as_usize()])),
            );
        }
        let mut views = Vec::new();
        if breaks {
            views.push(without_line_breaks(text));
        }
        if text.contains('%') {
            views.push(percent_decoded(text));
        }
        for view in &views {
            for m in automaton.find_iter(view.bytes.as_slice()) {
                let start = view.span(m.start()).0;
                let end = view.span(m.end() - 1).1;
                spans.push((start, end, self.owner[m.pattern().as_usize()]));
            }
        }
        if spans.is_empty() {
            return (Cow::Borrowed(text), Masked::default());
        }
        spans.sort_unstable();
        let mut counts = vec![0usize; self.names.len()];
        let mut out = String::with_capacity(text.len());
        let mut done = 0usize;
        for (start, end, secret) in spans {
            if end <= done {
                continue;
            }
            // Whole characters only (a span from a decoded view may start inside one).
            let mut start = start.max(done);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = end.min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let start = start.max(done);
            out.push_str(&text[done..start]);
            out.push_str("[REDACTED:");
            out.push_str(&self.names[secret]);
            out.push(']');
            counts[secret] += 1;
            done = end;
        }
        out.push_str(&text[done..]);
        let counts = self
            .names
            .iter()
            .zip(counts)
            .filter(|(_, n)| *n > 0)
            .map(|(name, n)| (name.clone(), n))
            .collect();
        (Cow::Owned(out), Masked { counts })
    }

    /// `[REDACTED:NAME]` of a known name in `text`, when it holds one (a write must not put a
    /// placeholder in place of a value).
    pub fn placeholder_in<'a>(&'a self, text: &str) -> Option<&'a str> {
        self.names
            .iter()
            .find(|name| text.contains(&format!("[REDACTED:{name}]")))
            .map(String::as_str)
    }
}

/// The forms of `value` looked for: as it is, escaped as in a JSON string, and the stable middle
/// of its base64 at the three alignments, in both alphabets.
fn forms(value: &[u8]) -> Vec<Vec<u8>> {
    // (URL encodings are read by decoding the text: see `percent_decoded`.)
    let mut out = vec![value.to_vec()];
    // As a JSON string holds it: `\"` and `\\`, with or without `\/` for a slash (encoders
    // differ).
    for slash in [false, true] {
        let mut json = Vec::with_capacity(value.len() + 8);
        for &byte in value {
            if byte == b'"' || byte == b'\\' || (slash && byte == b'/') {
                json.push(b'\\');
            }
            json.push(byte);
        }
        if !out.contains(&json) {
            out.push(json);
        }
    }
    for engine in [
        &base64::engine::general_purpose::STANDARD_NO_PAD,
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for shift in 0..3usize {
            let mut shifted = vec![0u8; shift];
            shifted.extend_from_slice(value);
            let text = engine.encode(&shifted);
            // The characters that depend on the bytes before and after are not stable.
            let start = (shift * 8).div_ceil(6);
            let end = (shifted.len() * 8) / 6;
            if let Some(middle) = text.get(start..end) {
                out.push(middle.as_bytes().to_vec());
            }
        }
    }
    out
}

/// A view of a text: its bytes, and where they came from. Bytes are copied in runs; `marks`
/// holds, for each run after the first, the view offset where it starts and the text offset it
/// starts at, so that a view offset is mapped back by a binary search.
struct View {
    bytes: Vec<u8>,
    /// `(view offset, text offset)` at the start of each run, ascending.
    marks: Vec<(usize, usize)>,
    /// `(view offset, text span)` of each byte decoded from an escape.
    decoded: Vec<(usize, (usize, usize))>,
}

impl View {
    fn new(capacity: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(capacity),
            marks: vec![(0, 0)],
            decoded: Vec::new(),
        }
    }

    /// Copy `text[from..to]` as it is.
    fn copy(&mut self, text: &[u8], from: usize, to: usize) {
        if from < to {
            self.marks.push((self.bytes.len(), from));
            self.bytes.extend_from_slice(&text[from..to]);
        }
    }

    /// The text span of view byte `at`.
    fn span(&self, at: usize) -> (usize, usize) {
        if let Ok(k) = self.decoded.binary_search_by_key(&at, |(v, _)| *v) {
            return self.decoded[k].1;
        }
        let k = self
            .marks
            .partition_point(|(v, _)| *v <= at)
            .saturating_sub(1);
        let (view, text) = self.marks[k];
        let offset = text + (at - view);
        (offset, offset + 1)
    }
}

/// `text` without `\r` and `\n`.
fn without_line_breaks(text: &str) -> View {
    let raw = text.as_bytes();
    let mut view = View::new(raw.len());
    let mut from = 0;
    for at in memchr::memchr2_iter(b'\n', b'\r', raw) {
        view.copy(raw, from, at);
        from = at + 1;
    }
    view.copy(raw, from, raw.len());
    view
}

/// `text` with each `%XX` escape as the byte it stands for, and `+` as a space.
fn percent_decoded(text: &str) -> View {
    let raw = text.as_bytes();
    let mut view = View::new(raw.len());
    let mut from = 0;
    for at in memchr::memchr2_iter(b'%', b'+', raw) {
        if at < from {
            continue;
        }
        let byte = if raw[at] == b'+' {
            Some((b' ', 1))
        } else {
            raw.get(at + 1..at + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .map(|b| (b, 3))
        };
        let Some((byte, len)) = byte else {
            continue;
        };
        view.copy(raw, from, at);
        view.decoded.push((view.bytes.len(), (at, at + len)));
        view.bytes.push(byte);
        from = at + len;
    }
    view.copy(raw, from, raw.len());
    view
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SECRET: &str = "s3cr3t-Value/With+Chars=";

    /// `%XX` for every byte but the unreserved ones (RFC 3986).
    fn url_encoded(value: &[u8]) -> String {
        let mut out = String::with_capacity(value.len() * 3);
        for &byte in value {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                out.push(byte as char);
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
        out
    }

    fn masker() -> Redactor {
        Redactor::new([
            ("FOO_TOKEN".to_owned(), SECRET.to_owned()),
            ("SHORT_KEY".to_owned(), "abc123".to_owned()),
        ])
    }

    #[test]
    fn every_form_of_a_value_is_masked_and_counted() {
        let r = masker();
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!("user:{SECRET}"));
        let text = format!(
            "raw {SECRET}\ninside xx{SECRET}yy\nurl {}\nbase64 {b64}\nsplit {}\n{}\n",
            url_encoded(SECRET.as_bytes()),
            &SECRET[..10],
            &SECRET[10..]
        );
        let (masked, what) = r.mask(&text);
        assert!(!masked.contains(SECRET), "{masked}");
        assert!(!masked.contains(&SECRET[..10]), "{masked}");
        assert!(
            !masked.contains(&url_encoded(SECRET.as_bytes())),
            "{masked}"
        );
        assert_eq!(
            masked.matches("[REDACTED:FOO_TOKEN]").count(),
            5,
            "{masked}"
        );
        assert_eq!(what.counts, [("FOO_TOKEN".to_owned(), 5)]);
        assert_eq!(r.too_short(), ["SHORT_KEY"]);
        assert!(masked.contains("raw [REDACTED:FOO_TOKEN]\ninside xx[REDACTED:FOO_TOKEN]yy\n"));
    }

    #[test]
    fn a_value_escaped_in_a_json_string_is_masked() {
        let r = Redactor::new([("B64_TOKEN".to_owned(), "ab/cd+ef\"gh".to_owned())]);
        for written in [r#"{"t":"ab\/cd+ef\"gh"}"#, r#"{"t":"ab/cd+ef\"gh"}"#] {
            let (masked, _) = r.mask(written);
            assert_eq!(masked, r#"{"t":"[REDACTED:B64_TOKEN]"}"#);
        }
    }

    #[test]
    fn a_value_holding_a_line_break_is_masked_too() {
        let r = Redactor::new([(
            "PEM_KEY".to_owned(),
            "-----BEGIN\nabcdefgh\n-----END".to_owned(),
        )]);
        let (masked, what) = r.mask("key:\n-----BEGIN\nabcdefgh\n-----END\nafter");
        assert_eq!(masked, "key:\n[REDACTED:PEM_KEY]\nafter");
        assert_eq!(what.total(), 1);
    }

    #[test]
    fn a_text_without_a_value_is_left_as_it_is() {
        let r = masker();
        let (masked, what) = r.mask("nothing to see\nhere abc123");
        assert!(matches!(masked, Cow::Borrowed(_)));
        assert!(what.is_empty());
        assert!(Redactor::new([]).is_empty());
    }

    proptest! {
        #[test]
        fn the_value_never_survives_wherever_it_is_put(
            before in "[ -~\n]{0,40}",
            after in "[ -~\n]{0,40}",
            value in "[!-~]{8,30}",
            split in 0usize..30,
        ) {
            let r = Redactor::new([("X_TOKEN".to_owned(), value.clone())]);
            let cut = split.min(value.len());
            for text in [
                format!("{before}{value}{after}"),
                format!("{before}{}\n{}{after}", &value[..cut], &value[cut..]),
                format!("{before}{}{after}", base64::engine::general_purpose::STANDARD.encode(format!("{before}{value}"))),
                // Inside a JSON document, as a command's JSON output holds it.
                format!("{before}{}{after}", serde_json::json!({"v": value})),
                // Every byte escaped, as some encoders do.
                format!("{before}{}{after}", value.bytes().map(|b| format!("%{b:02x}")).collect::<String>()),
            ] {
                let (masked, _) = r.mask(&text);
                prop_assert!(!masked.contains(&value), "{}", masked);
                prop_assert!(masked.contains("[REDACTED:X_TOKEN]"), "{}", masked);
            }
        }
    }
}
