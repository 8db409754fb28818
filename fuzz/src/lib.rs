//! Fuzz targets of warden: each takes arbitrary bytes and panics only on a bug.
//!
//! | target | what it feeds |
//! | --- | --- |
//! | `at_parser` | the `@` reference parser, with the invariant that parsing never loses text |
//! | `history` | the history loader (framing, checksums, torn tails) |
//! | `config` | the layered configuration loader (one project layer) |
//! | `sse` | the server-sent events parser, with the invariant that splitting the input anywhere gives the same events |
//! | `boundary` | arbitrary WIT values from a guest through the host's conversions and caps |
//!
//! `src/afl.rs` runs them coverage-guided under AFL++ (`fuzz/afl.sh`), `src/main.rs` with a
//! mutational driver for a bounded time (`fuzz/run.sh`, CI); `tests/corpus.rs` replays the
//! corpus and every crash found as regression tests.

use std::path::Path;

/// A fuzz target.
pub type Target = fn(&[u8]);

/// Every target, by name.
pub const TARGETS: &[(&str, Target)] = &[
    ("at_parser", at_parser),
    ("history", history),
    ("config", config),
    ("sse", sse),
    ("boundary", boundary),
];

/// The `@` parser: never panics, and the segments hold the whole prompt.
pub fn at_parser(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let parsed = warden::fileref::parse(&text);
    assert_eq!(warden::domain::Segment::typed(&parsed.segments), text);
    let refs = parsed
        .segments
        .iter()
        .filter(|s| matches!(s, warden::domain::Segment::FileRef { .. }))
        .count();
    assert_eq!(refs, parsed.mentions.len());
    for m in &parsed.mentions {
        assert!(m.raw(&text).starts_with('@'), "{m:?}");
    }
}

/// The history loader: never panics; a history it accepts is accepted again identically.
pub fn history(data: &[u8]) {
    let path = Path::new("fuzz/history.jsonl");
    let first = warden::store::scan_history_bytes(path, data).map_err(|e| e.to_string());
    let again = warden::store::scan_history_bytes(path, data).map_err(|e| e.to_string());
    assert_eq!(first, again);
}

thread_local! {
    /// One directory per thread for the config target's file, kept for the whole run.
    static CONFIG_DIR: Option<tempfile::TempDir> = tempfile::tempdir().ok();
}

/// The configuration loader on one project layer: never panics.
pub fn config(data: &[u8]) {
    let Some(path) = CONFIG_DIR.with(|d| d.as_ref().map(|d| d.path().join("config.toml"))) else {
        return;
    };
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let sources = warden::config::Sources {
        layers: vec![(warden::config::LayerKind::Project, path)],
        managed_is_system: false,
        notes: Vec::new(),
    };
    let _ = warden::config::load(&sources);
}

/// The SSE parser: splitting the input at any byte gives the same events.
pub fn sse(data: &[u8]) {
    let whole = warden::llm::sse::parse_all(data);
    let at = data
        .first()
        .map_or(0, |&b| usize::from(b) % (data.len() + 1));
    let mut parser = warden::llm::sse::SseParser::new();
    let mut split = Vec::new();
    parser.feed(&data[..at], &mut split);
    parser.feed(&data[at..], &mut split);
    let mut byte_by_byte = Vec::new();
    let mut parser = warden::llm::sse::SseParser::new();
    for b in data {
        parser.feed(std::slice::from_ref(b), &mut byte_by_byte);
    }
    assert_eq!(whole, split);
    assert_eq!(whole, byte_by_byte);
}

/// The plugin boundary: arbitrary guest answers through conversions and caps.
pub fn boundary(data: &[u8]) {
    warden::plugin::fuzzing::boundary(data);
}
