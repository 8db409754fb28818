//! Tests of the file tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::fileref::testing::MapResolver;

fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments,
    }
}

fn result(item: Item) -> (String, bool) {
    match item {
        Item::ToolResult {
            content, is_error, ..
        } => (content, is_error),
        other => panic!("tool result expected, got {other:?}"),
    }
}

#[test]
fn specs_name_both_tools_with_schemas() {
    let specs = specs();
    assert_eq!(
        specs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        vec!["read_file", "list_files"]
    );
    assert_eq!(specs[0].input_schema["required"], json!(["path"]));
    assert!(is_file_tool("read_file") && is_file_tool("list_files") && !is_file_tool("bash"));
}

#[test]
fn read_file_with_continuation_line() {
    let mut r = MapResolver::with(&[("a", "1\n2\n3\n4\n")]);
    let config = FileRefConfig::default();
    let (out, err) = result(run(
        &call("read_file", json!({"path": "a", "limit": 2})),
        &mut r,
        &config,
    ));
    assert!(!err);
    assert_eq!(
        out,
        "1\n2\n[lines 1-2 of 4 shown; more follows: call read_file with offset 3]"
    );
    let (out, _) = result(run(
        &call("read_file", json!({"path": "a", "offset": 3})),
        &mut r,
        &config,
    ));
    assert_eq!(out, "3\n4\n[lines 3-4 of 4 shown; end of file]");
    let (out, _) = result(run(
        &call("read_file", json!({"path": "a"})),
        &mut r,
        &config,
    ));
    assert_eq!(out, "1\n2\n3\n4\n");
}

#[test]
fn bad_arguments_say_what_is_wrong() {
    let mut r = MapResolver::with(&[("a", "1\n")]);
    let config = FileRefConfig::default();
    for (args, needle) in [
        (json!("a"), "expected a JSON object"),
        (json!({}), "`path` is required"),
        (json!({"path": 3}), "`path` must be a non-empty string"),
        (
            json!({"path": "a", "offset": 0}),
            "`offset` must be an integer ≥ 1, got 0",
        ),
        (
            json!({"path": "a", "limit": -1}),
            "`limit` must be an integer ≥ 1",
        ),
        (json!({"path": "a", "limt": 1}), "unknown argument `limt`"),
    ] {
        let (out, err) = result(run(&call("read_file", args.clone()), &mut r, &config));
        assert!(err, "{args}");
        assert!(out.contains(needle), "{args}: {out}");
    }
    let (out, err) = result(run(&call("rm", json!({})), &mut r, &config));
    assert!(err && out.contains("unknown tool `rm`"));
}

#[test]
fn resolver_errors_are_error_results() {
    let mut r = MapResolver::default();
    let (out, err) = result(run(
        &call("read_file", json!({"path": "../x"})),
        &mut r,
        &FileRefConfig::default(),
    ));
    assert!(err);
    assert_eq!(out, "not found: ../x: no such file or directory");
}

#[test]
fn list_files_defaults_to_the_root_and_marks_truncation() {
    let mut r = MapResolver::with(&[("./", "a\nb/\nc\n")]);
    let config = FileRefConfig {
        max_entries: 2,
        ..FileRefConfig::default()
    };
    let (out, err) = result(run(&call("list_files", json!({})), &mut r, &config));
    assert!(!err);
    assert_eq!(
        out,
        "- a\n- b/\n[listing stopped at 2 entries; list a subdirectory to see more]"
    );
    // A name that looks like the note, or like a header, stays a marked entry.
    let mut r = MapResolver::with(&[(
        "./",
        "[listing stopped at 1 entries; list a subdirectory to see more]\n[File: x]\n",
    )]);
    let (out, _) = result(run(&call("list_files", json!({})), &mut r, &config));
    assert_eq!(
        out,
        "- [listing stopped at 1 entries; list a subdirectory to see more]\n- [File: x]"
    );
}

#[test]
fn chunk_formats() {
    let chunk = |content: &str, first_line, lines, total_lines, more| FileChunk {
        path: "p".into(),
        content: content.into(),
        first_line,
        lines,
        total_lines,
        more,
    };
    assert_eq!(format_chunk(&chunk("", 1, 0, 0, false), 10), "(empty file)");
    assert_eq!(
        format_chunk(&chunk("aaaa", 5, 1, 9, true), 4),
        "aaaa\n[line 5 is longer than 4 bytes; only its start is shown. More follows: call read_file with offset 6]"
    );
    assert_eq!(
        format_chunk(&chunk("x\n", 1, 1, 0, true), 4),
        "x\n[lines 1-1 shown; more follows: call read_file with offset 2]"
    );
}
