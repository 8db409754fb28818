//! Tests of the resolution stage on whole results.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;

use super::*;
use crate::config::Placement;
use crate::fileref::parse;
use crate::fileref::testing::MapResolver;

/// The entries as (source, item) pairs, for whole-list comparisons.
fn pairs(out: &ResolvedPrompt) -> Vec<(Source, Item)> {
    out.entries
        .iter()
        .map(|e| (e.source.clone(), e.item.clone()))
        .collect()
}

fn run(
    prompt: &str,
    resolver: &mut MapResolver,
    config: &FileRefConfig,
    shown: &ShownFiles,
) -> ResolvedPrompt {
    resolve_prompt(&parse(prompt).segments, resolver, config, shown)
}

#[test]
fn resolves_in_order_and_reports_failures() {
    let mut r = MapResolver::with(&[("a.txt", "alpha\n"), ("src/", "main.rs\n")]).fail(
        ".env",
        ResolveError::Denied(".env matches the workspace's deny list".into()),
    );
    let out = run(
        "see @a.txt, @missing.rs and @.env in @src/",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert_eq!(
        out.user_text,
        "see @a.txt, [unresolved file ref: missing.rs] and [unresolved file ref: .env] in @src/"
    );
    assert_eq!(
        pairs(&out),
        vec![
            (Source::User, Item::user(out.user_text.clone())),
            (Source::FileRef, Item::system("[File: a.txt]\nalpha\n")),
            (
                Source::FileRef,
                Item::system("[Directory: src/]\n- main.rs\n")
            ),
        ]
    );
    assert_eq!(
        out.alerts,
        vec![
            Alert::warn(
                "fileref",
                "@missing.rs not included — not found: missing.rs: no such file or directory"
            ),
            Alert::warn(
                "fileref",
                "@.env not included — denied: .env matches the workspace's deny list"
            ),
        ]
    );
    let json = serde_json::to_value(&out.refs).unwrap();
    assert_eq!(
        json,
        serde_json::json!([
            {"raw": "@a.txt", "path": "a.txt", "range": null, "status": "resolved", "bytes": 6, "truncated": false},
            {"raw": "@missing.rs", "path": "missing.rs", "range": null, "status": "not-found", "bytes": 0, "truncated": false},
            {"raw": "@.env", "path": ".env", "range": null, "status": "denied", "bytes": 0, "truncated": false},
            {"raw": "@src/", "path": "src", "range": null, "status": "resolved", "bytes": 8, "truncated": false},
        ])
    );
    assert_eq!(out.audit.len(), 2);
    assert_eq!(
        out.audit[0].sha256,
        crate::fileref::dedup::digest_hex("alpha\n")
    );
}

#[test]
fn line_range_is_passed_and_reported() {
    let mut r = MapResolver::with(&[("a.rs", "1\n2\n3\n4\n")]);
    let out = run(
        "@a.rs#L2-3",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert_eq!(
        pairs(&out)[1],
        (Source::FileRef, Item::system("[File: a.rs#L2-3]\n2\n3\n"))
    );
    assert_eq!(out.refs[0].range, Some(LineRange { start: 2, end: 3 }));
}

#[test]
fn literal_hash_name_wins() {
    let mut r = MapResolver::with(&[("a#L1", "literal\n"), ("a", "plain\n")]);
    let out = run(
        "@a#L1",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert_eq!(out.entries[1].item, Item::system("[File: a#L1]\nliteral\n"));
    assert_eq!(out.refs[0].range, None);
    let mut r = MapResolver::with(&[("a", "plain\nsecond\n")]);
    let out = run(
        "@a#L2",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert_eq!(out.entries[1].item, Item::system("[File: a#L2]\nsecond\n"));
}

#[test]
fn budget_cuts_then_drops() {
    let big = "x".repeat(1000);
    let mut r = MapResolver::with(&[("a", &big), ("b", &big), ("c", &big)]);
    let config = FileRefConfig {
        max_bytes: 1000,
        max_total_bytes: 1600,
        ..FileRefConfig::default()
    };
    let out = run("@a @b @c", &mut r, &config, &ShownFiles::new());
    assert_eq!(
        r.requests.iter().map(|q| q.max_bytes).collect::<Vec<_>>(),
        vec![1000, 472]
    );
    assert_eq!(
        out.refs.iter().map(|r| r.status).collect::<Vec<_>>(),
        vec!["resolved", "resolved", "too-large"]
    );
    assert!(out.refs[1].truncated);
    assert_eq!(out.user_text, "@a @b [unresolved file ref: c]");
    assert_eq!(out.alerts.len(), 2);
    assert!(out.alerts[0].message.contains("@b cut to 472 bytes"));
    assert_eq!(
        out.alerts[1].message,
        "1 reference dropped: the prompt's file budget of 1600 bytes is spent: @c; \
         raise fileref.max_total_bytes to include more"
    );
    let placed: u64 = out.refs.iter().map(|r| r.bytes).sum();
    assert!(placed <= 1600, "{placed}");
}

#[test]
fn dedup_within_and_across_prompts_and_after_resume() {
    let config = FileRefConfig::default();
    let mut r = MapResolver::with(&[("a.txt", "alpha\n")]);
    let first = run("@a.txt and @a.txt", &mut r, &config, &ShownFiles::new());
    assert_eq!(
        first.entries[2].item,
        Item::system("[File: a.txt unchanged since it was last shown]")
    );
    assert_eq!(first.refs[1].bytes, 0);
    assert_eq!(first.audit.len(), 1);

    // A resumed session rebuilds what was shown from history.
    let shown = ShownFiles::from_history(&first.entries);
    let again = run("@a.txt", &mut r, &config, &shown);
    assert_eq!(
        again.entries[1].item,
        Item::system("[File: a.txt unchanged since it was last shown]")
    );

    // Changed content is shown again.
    r.files.insert("a.txt".into(), Ok("beta\n".into()));
    let changed = run("@a.txt", &mut r, &config, &shown);
    assert_eq!(
        changed.entries[1].item,
        Item::system("[File: a.txt]\nbeta\n")
    );

    // Switched off.
    let off = FileRefConfig {
        dedup: false,
        ..config
    };
    r.files.insert("a.txt".into(), Ok("alpha\n".into()));
    let out = run("@a.txt", &mut r, &off, &shown);
    assert_eq!(out.entries[1].item, Item::system("[File: a.txt]\nalpha\n"));
}

#[test]
fn tool_result_placement_numbers_calls_across_the_session() {
    let config = FileRefConfig {
        placement: Placement::ToolResult,
        ..FileRefConfig::default()
    };
    let mut r = MapResolver::with(&[("a", "1\n"), ("b", "2\n")]);
    let first = run("@a", &mut r, &config, &ShownFiles::new());
    let mut shown = ShownFiles::from_history(&first.entries);
    assert_eq!(shown.next_call(), 1);
    let second = run("@b", &mut r, &config, &shown);
    let Item::Assistant { tool_calls, .. } = &second.entries[1].item else {
        panic!("assistant item expected")
    };
    assert_eq!(tool_calls[0].id, "fileref-1");
    shown.record(&second.entries);
    assert_eq!(shown.next_call(), 2);
    let third = run("@a", &mut r, &config, &shown);
    assert_eq!(
        third.entries[2].item,
        Item::ToolResult {
            call_id: "fileref-2".into(),
            content: "[File: a unchanged since it was last shown]".into(),
            is_error: false
        }
    );
}

#[test]
fn reminder_placement_whole_list() {
    let config = FileRefConfig {
        placement: Placement::Reminder,
        ..FileRefConfig::default()
    };
    let mut r = MapResolver::with(&[("a", "1\n")]);
    let out = run("look @a @nope", &mut r, &config, &ShownFiles::new());
    assert_eq!(
        pairs(&out),
        vec![
            (
                Source::User,
                Item::user("look @a [unresolved file ref: nope]")
            ),
            (
                Source::FileRef,
                Item::system(
                    "<system-reminder>\nFiles the user referenced, in the order mentioned:\n<file path=\"a\">\n1\n\n</file>\n</system-reminder>"
                )
            ),
        ]
    );
}

#[test]
fn no_refs_no_file_items() {
    let mut r = MapResolver::default();
    let out = run(
        "just text, mail a@b.c",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert_eq!(
        pairs(&out),
        vec![(Source::User, Item::user("just text, mail a@b.c"))]
    );
    assert!(out.alerts.is_empty() && out.refs.is_empty() && r.requests.is_empty());
}

#[test]
fn control_characters_in_unresolved_paths_are_escaped() {
    let mut r = MapResolver::default();
    let out = run(
        "@\"a\nb\"",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert_eq!(out.user_text, "[unresolved file ref: a\\nb]");
}

/// A resolver that ignores the cap it is given.
struct Greedy;

impl Resolve for Greedy {
    fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
        Ok(Resolved {
            path: request.path.clone(),
            kind: crate::domain::EntryKind::File,
            content: "é".repeat(100_000),
            total_bytes: 200_000,
            truncated: false,
        })
    }
    fn read_file(
        &mut self,
        _: &str,
        _: u32,
        _: u32,
        _: u64,
    ) -> Result<crate::domain::FileChunk, ResolveError> {
        Err(ResolveError::Io("unused".into()))
    }
    fn list_files(&mut self, _: &str, _: u32) -> Result<crate::domain::Listing, ResolveError> {
        Err(ResolveError::Io("unused".into()))
    }
}

#[test]
fn a_resolver_over_its_cap_is_cut() {
    let config = FileRefConfig {
        max_bytes: 1001,
        ..FileRefConfig::default()
    };
    let out = resolve_prompt(
        &parse("@x").segments,
        &mut Greedy,
        &config,
        &ShownFiles::new(),
    );
    assert!(out.refs[0].truncated);
    assert!(out.refs[0].bytes <= 1001 + MARKER_RESERVE);
    assert!(
        pairs(&out)[1]
            .1
            .text()
            .ends_with("[...truncated, 200000 bytes total — use read_file for the rest]")
    );
}

#[test]
fn hundreds_of_refs_past_the_budget_raise_one_alert() {
    let big = "x".repeat(1000);
    let names: Vec<String> = (0..500).map(|i| format!("f{i}")).collect();
    let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), big.as_str())).collect();
    let mut r = MapResolver::with(&files);
    let config = FileRefConfig {
        max_bytes: 1000,
        max_total_bytes: 2000,
        ..FileRefConfig::default()
    };
    let prompt: Vec<String> = names.iter().map(|n| format!("@{n}#L1-2")).collect();
    let out = run(&prompt.join(" "), &mut r, &config, &ShownFiles::new());
    let warns: Vec<&Alert> = out
        .alerts
        .iter()
        .filter(|a| a.level == crate::domain::AlertLevel::Warn)
        .collect();
    assert_eq!(warns.len(), 1, "{warns:?}");
    let message = &warns[0].message;
    assert!(message.starts_with("498 references dropped"), "{message}");
    assert!(
        message.contains("@f2#L1-2, @f3#L1-2, @f4#L1-2 and 495 more"),
        "{message}"
    );
    assert!(message.contains("fileref.max_total_bytes"), "{message}");
    assert_eq!(out.refs.len(), 500);
    // The placeholder keeps the range.
    assert!(
        out.user_text.contains("[unresolved file ref: f499#L1-2]"),
        "{}",
        out.user_text
    );
}

#[test]
fn bad_ranges_are_reference_errors_not_io_errors() {
    let mut r = MapResolver::with(&[("a", "one\ntwo\n")]);
    let out = run(
        "@a#L0 @a#L5-2",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert_eq!(
        out.refs.iter().map(|r| r.status).collect::<Vec<_>>(),
        vec!["error", "error"]
    );
    assert!(
        out.alerts[0].message.contains("lines are numbered from 1"),
        "{:?}",
        out.alerts
    );
    assert!(
        out.alerts[1].message.contains("the start is after the end"),
        "{:?}",
        out.alerts
    );
    for alert in &out.alerts {
        assert!(!alert.message.contains("i/o error"), "{}", alert.message);
    }
    assert!(
        r.requests.is_empty(),
        "refused before the resolver is asked"
    );
}

#[test]
fn a_name_split_by_the_shell_gets_a_quoting_hint() {
    let mut r = MapResolver::with(&[("my notes.txt", "n\n")]);
    let out = run(
        "read @my notes.txt please",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert_eq!(out.refs[0].status, "not-found");
    let message = &out.alerts[0].message;
    assert!(message.contains("\"my notes.txt\" exists"), "{message}");
    assert!(message.contains("single quotes"), "{message}");
    let out = run(
        "read @nothing here",
        &mut r,
        &FileRefConfig::default(),
        &ShownFiles::new(),
    );
    assert!(
        !out.alerts[0].message.contains("quotes"),
        "{}",
        out.alerts[0].message
    );
}
