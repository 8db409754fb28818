//! A server-sent events parser: bytes in, events out.
//!
//! Follows the WHATWG event-stream rules that matter to model APIs: lines end with `\r\n`,
//! `\n` or `\r`; `data:` lines of one event are joined with `\n`; a single space after the
//! colon is dropped; lines starting with `:` are comments; a blank line dispatches the event;
//! an event without data is not dispatched; a leading byte-order mark is skipped; an unfinished
//! event at end of input is discarded. Input may be split at any byte, including inside a
//! UTF-8 sequence or between `\r` and `\n`.

use std::ops::ControlFlow;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; empty when the stream gave none (the spec's `message`).
    pub event: String,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// Incremental parser; feed it chunks as they arrive.
///
/// [`feed_with`](Self::feed_with) lends each event to a callback from buffers the parser
/// reuses, so parsing allocates nothing per event; [`feed`](Self::feed) collects owned copies.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    current: SseEvent,
    has_data: bool,
    /// The previous chunk ended with `\r`: a `\n` at the start of the next one is part of it.
    after_cr: bool,
    /// Still at the very start of the stream (a BOM may follow).
    at_start: bool,
    /// True while the current event has any field or comment lines.
    in_event: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self {
            at_start: true,
            ..Self::default()
        }
    }

    /// Parses `chunk`, appending completed events to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) {
        let _: ControlFlow<()> = self.feed_with(chunk, |ev| {
            out.push(ev.clone());
            ControlFlow::Continue(())
        });
    }

    /// Parses `chunk`, handing each completed event to `on_event`. Stops at the first
    /// `Break`, which it returns; the rest of the chunk is then left unparsed.
    pub fn feed_with<B>(
        &mut self,
        mut chunk: &[u8],
        mut on_event: impl FnMut(&SseEvent) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        if self.at_start {
            // Wait until three bytes are known before deciding on a BOM.
            self.line.extend_from_slice(chunk);
            if self.line.len() < BOM.len() && BOM.starts_with(&self.line) {
                return ControlFlow::Continue(());
            }
            self.at_start = false;
            let buffered = std::mem::take(&mut self.line);
            let rest = buffered.strip_prefix(BOM).unwrap_or(&buffered);
            return self.feed_lines(rest, &mut on_event);
        }
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        self.feed_lines(chunk, &mut on_event)
    }

    /// True when input ended in the middle of an event (its data is discarded).
    pub fn has_partial_event(&self) -> bool {
        self.in_event || !self.line.is_empty()
    }

    fn feed_lines<B, F>(&mut self, mut chunk: &[u8], on_event: &mut F) -> ControlFlow<B>
    where
        F: FnMut(&SseEvent) -> ControlFlow<B>,
    {
        while let Some(pos) = chunk.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let (head, tail) = chunk.split_at(pos);
            let rest = &tail[1..];
            chunk = if tail[0] == b'\r' {
                match rest.first() {
                    Some(b'\n') => &rest[1..],
                    Some(_) => rest,
                    None => {
                        self.after_cr = true;
                        rest
                    }
                }
            } else {
                rest
            };
            let flow = if self.line.is_empty() {
                self.process_line(head, on_event)
            } else {
                // The line began in an earlier chunk; reuse its buffer afterwards.
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(head);
                let flow = self.process_line(&line, on_event);
                line.clear();
                self.line = line;
                flow
            };
            flow?;
        }
        self.line.extend_from_slice(chunk);
        ControlFlow::Continue(())
    }

    fn process_line<B, F>(&mut self, line: &[u8], on_event: &mut F) -> ControlFlow<B>
    where
        F: FnMut(&SseEvent) -> ControlFlow<B>,
    {
        if line.is_empty() {
            let flow = if self.has_data {
                on_event(&self.current)
            } else {
                ControlFlow::Continue(())
            };
            self.current.event.clear();
            self.current.data.clear();
            self.has_data = false;
            self.in_event = false;
            return flow;
        }
        self.in_event = true;
        if line[0] == b':' {
            return ControlFlow::Continue(());
        }
        let (name, value) = match line.iter().position(|b| *b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(&String::from_utf8_lossy(value));
                self.has_data = true;
            }
            b"event" => {
                self.current.event.clear();
                self.current.event.push_str(&String::from_utf8_lossy(value));
            }
            // `id` and `retry` steer browser reconnection, which model APIs do not use.
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// Parses a whole stream at once.
pub fn parse_all(bytes: &[u8]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    parser.feed(bytes, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn parses_fields_comments_and_line_endings() {
        let input = "\u{feff}: hello\r\nevent: a\r\ndata: 1\r\ndata:2\r\n\r\nid: 7\nretry: 5\n\ndata\n\nevent: b\rdata:  x\r\r";
        assert_eq!(
            parse_all(input.as_bytes()),
            vec![ev("a", "1\n2"), ev("", ""), ev("b", " x")]
        );
    }

    #[test]
    fn unfinished_event_is_discarded() {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.feed(b"data: done\n\ndata: half", &mut out);
        assert_eq!(out, vec![ev("", "done")]);
        assert!(p.has_partial_event());
    }

    #[test]
    fn cr_split_from_lf_is_one_line_end() {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for chunk in [&b"data: a\r"[..], b"", b"\n", b"\r", b"\ndata: b\r\n\r\n"] {
            p.feed(chunk, &mut out);
        }
        assert_eq!(out, vec![ev("", "a"), ev("", "b")]);
    }

    #[test]
    fn feed_with_lends_events_and_stops_at_break() {
        let mut p = SseParser::new();
        let mut seen = Vec::new();
        let flow = p.feed_with(b"data: 1\n\ndata: 2\n\ndata: 3\n\n", |ev| {
            seen.push(ev.data.clone());
            if ev.data == "2" {
                ControlFlow::Break("stopped")
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(flow, ControlFlow::Break("stopped"));
        assert_eq!(seen, vec!["1", "2"]);
    }

    fn render(events: &[(String, Vec<String>)], eol: &str, comments: bool) -> String {
        let mut s = String::new();
        for (event, lines) in events {
            if comments {
                s.push_str(": keep-alive");
                s.push_str(eol);
            }
            if !event.is_empty() {
                s.push_str(&format!("event: {event}{eol}"));
            }
            for line in lines {
                s.push_str(&format!("data: {line}{eol}"));
            }
            s.push_str(eol);
        }
        s
    }

    fn events_strategy() -> impl Strategy<Value = Vec<(String, Vec<String>)>> {
        let text = "[a-zA-Z0-9 {}\":,é→]{0,12}";
        prop::collection::vec(("[a-z_]{0,8}", prop::collection::vec(text, 1..4)), 0..6)
    }

    proptest! {
        #[test]
        fn any_chunking_yields_the_same_events(
            events in events_strategy(),
            eol in prop::sample::select(vec!["\n", "\r\n", "\r"]),
            comments in any::<bool>(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let text = render(&events, eol, comments);
            let bytes = text.as_bytes();
            let expected: Vec<SseEvent> = events
                .iter()
                .map(|(e, lines)| ev(e, &lines.join("\n")))
                .collect();
            prop_assert_eq!(parse_all(bytes), expected.clone());

            let mut points: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            points.sort_unstable();
            let mut parser = SseParser::new();
            let mut out = Vec::new();
            let mut start = 0;
            for p in points.into_iter().chain([bytes.len()]) {
                parser.feed(&bytes[start..p], &mut out);
                start = p;
            }
            prop_assert_eq!(out, expected);
            prop_assert!(!parser.has_partial_event());
        }
    }
}
