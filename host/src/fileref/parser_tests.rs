//! Tests of the `@path` parser: one example per rule, and properties over arbitrary input.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;

use super::*;

/// Path, range and raw text of a mention.
type Ref = (String, Option<(u32, u32)>, String);

/// Every mention of `input`.
fn refs(input: &str) -> Vec<Ref> {
    let parsed = parse(input);
    parsed
        .mentions
        .iter()
        .map(|m| {
            (
                m.path.clone(),
                m.range.map(|r| (r.start, r.end)),
                m.raw(input).to_owned(),
            )
        })
        .collect()
}

fn paths(input: &str) -> Vec<String> {
    refs(input).into_iter().map(|(p, _, _)| p).collect()
}

#[test]
fn bare_path() {
    assert_eq!(
        refs("explain @src/main.rs now"),
        vec![("src/main.rs".into(), None, "@src/main.rs".into())]
    );
    assert_eq!(paths("@a"), vec!["a"]);
}

#[test]
fn quoted_path_with_spaces_and_escapes() {
    assert_eq!(
        refs(r#"read @"docs/my notes.md" please"#),
        vec![(
            "docs/my notes.md".into(),
            None,
            r#"@"docs/my notes.md""#.into()
        )]
    );
    assert_eq!(paths(r#"@"say \"hi\".txt""#), vec![r#"say "hi".txt"#]);
    assert_eq!(paths(r#"@"back\\slash""#), vec![r"back\slash"]);
    assert_eq!(paths(r#"@"keep\n""#), vec![r"keep\n"]);
}

#[test]
fn quoted_with_range_after_the_quote() {
    assert_eq!(
        refs(r##"@"my notes.md"#L3 x"##),
        vec![(
            "my notes.md".into(),
            Some((3, 3)),
            r##"@"my notes.md"#L3"##.into()
        )]
    );
}

#[test]
fn unterminated_or_empty_quotes_are_text() {
    assert!(paths(r#"@"no end"#).is_empty());
    assert!(paths(r#"@"" x"#).is_empty());
}

#[test]
fn escaped_spaces() {
    assert_eq!(
        refs(r"open @path\ with\ escapes.txt now"),
        vec![(
            "path with escapes.txt".into(),
            None,
            r"@path\ with\ escapes.txt".into()
        )]
    );
}

#[test]
fn escaped_at_is_literal() {
    assert!(paths(r"mail \@home").is_empty());
    let parsed = parse(r"mail \@home");
    assert_eq!(
        parsed.segments,
        vec![Segment::Text {
            text: r"mail \@home".into()
        }]
    );
}

#[test]
fn email_is_not_a_mention() {
    assert!(paths("write to a@b.c or first.last@example.org").is_empty());
    assert!(paths("x_@y").is_empty());
    assert_eq!(paths("(@a.txt)"), vec!["a.txt"]);
}

#[test]
fn lone_at_is_text() {
    for input in ["@", "a @ b", "@ ", "@\n", "@@", "@,", "@)"] {
        assert!(paths(input).is_empty(), "{input:?}");
    }
    assert_eq!(paths("@@x"), vec!["x"]);
}

#[test]
fn trailing_punctuation_ends_a_path() {
    assert_eq!(
        paths("see @a.rs, @b.rs; @c.rs! @d.rs? (@e.rs) [@f.rs] {@g.rs} @h.rs."),
        vec![
            "a.rs", "b.rs", "c.rs", "d.rs", "e.rs", "f.rs", "g.rs", "h.rs"
        ]
    );
    assert_eq!(paths("in @a.rs: look"), vec!["a.rs"]);
    assert_eq!(paths("end @x.rs..."), vec!["x.rs"]);
    assert_eq!(paths("`@x.rs`"), vec!["x.rs"]);
    assert_eq!(paths(r"@x\."), vec!["x."]);
}

/// Path termination as in gemini-cli's at-command tests (see docs/fileref.md for where warden
/// deliberately differs).
#[test]
fn brackets_and_sentence_punctuation_end_a_path_anywhere() {
    assert_eq!(
        paths("Analyze @func.ts(the main function)."),
        vec!["func.ts"]
    );
    assert_eq!(
        paths("Check @array.js[0] for the first element."),
        vec!["array.js"]
    );
    assert_eq!(paths("Parse @object.ts{prop1: value1}."), vec!["object.ts"]);
    assert_eq!(
        paths("Use data from @data.json) for testing."),
        vec!["data.json"]
    );
    assert_eq!(
        paths("Review item @list.md] from the list."),
        vec!["list.md"]
    );
    assert_eq!(
        paths("Use settings from @config.yaml} now."),
        vec!["config.yaml"]
    );
    assert_eq!(
        paths("Compare @first.txt,@second.txt;what"),
        vec!["first.txt", "second.txt"]
    );
    assert_eq!(paths("@a!b and @c?d"), vec!["a", "c"]);
    assert_eq!(
        paths(r"Check @spaced\ file.txt, it has spaces."),
        vec!["spaced file.txt"]
    );
    assert_eq!(paths(r"@f\(1\).txt"), vec!["f(1).txt"]);
    assert_eq!(paths("@\"a (1).txt\"."), vec!["a (1).txt"]);
    assert_eq!(
        paths("Check @file$with&special#chars.txt for content."),
        vec!["file$with&special#chars.txt"]
    );
    assert_eq!(
        paths("Check @version.1.2.3.txt contains"),
        vec!["version.1.2.3.txt"]
    );
    assert_eq!(
        paths("Analyze @example.d.ts for types."),
        vec!["example.d.ts"]
    );
    assert_eq!(paths("Show me @end.txt."), vec!["end.txt"]);
    assert_eq!(paths("Check @config.json. This file"), vec!["config.json"]);
    let with_range = refs("see @a.rs#L2-3) and @b.rs#L4,");
    assert_eq!(with_range.len(), 2);
    assert_eq!(with_range[0].1, Some((2, 3)));
    assert_eq!(with_range[1].1, Some((4, 4)));
}

#[test]
fn no_break_spaces_stay_in_a_name() {
    assert_eq!(
        paths("@my\u{202f}file.txt please"),
        vec!["my\u{202f}file.txt"]
    );
    assert_eq!(paths("@a\u{a0}b c"), vec!["a\u{a0}b"]);
    // Other spaces end a path, as ASCII spaces do.
    assert_eq!(paths("@a\u{3000}b"), vec!["a"]);
}

#[test]
fn deliberate_differences_from_gemini_cli() {
    // A trailing colon or quote ends the path (prose: "in @a.rs: …", "'@a.rs'").
    assert_eq!(paths("in @a.rs: look"), vec!["a.rs"]);
    assert_eq!(paths("'@a.rs'"), vec!["a.rs"]);
    // A dot before other closing punctuation is not part of the name.
    assert_eq!(paths("(see @a.rs.)"), vec!["a.rs"]);
    // An @ right after a letter or digit is an e-mail address, not a mention.
    assert!(paths("mail me@x.org").is_empty());
}

#[test]
fn dot_inside_a_name_is_kept() {
    assert_eq!(paths("@archive.tar.gz."), vec!["archive.tar.gz"]);
    assert_eq!(paths("@.env"), vec![".env"]);
    assert_eq!(paths("@./a/.hidden"), vec!["./a/.hidden"]);
}

#[test]
fn dot_components_are_kept() {
    assert_eq!(paths("@.."), vec![".."]);
    assert_eq!(paths("@../.."), vec!["../.."]);
    assert_eq!(paths("@."), vec!["."]);
    assert_eq!(paths("@a/.."), vec!["a/.."]);
}

#[test]
fn line_ranges() {
    assert_eq!(
        refs("@a.rs#L10"),
        vec![("a.rs".into(), Some((10, 10)), "@a.rs#L10".into())]
    );
    assert_eq!(
        refs("@a.rs#L10-20, ok"),
        vec![("a.rs".into(), Some((10, 20)), "@a.rs#L10-20".into())]
    );
    assert_eq!(
        refs("@a.rs#L10."),
        vec![("a.rs".into(), Some((10, 10)), "@a.rs#L10".into())]
    );
}

#[test]
fn zero_and_reversed_ranges_still_parse() {
    assert_eq!(refs("@a#L0")[0].1, Some((0, 0)));
    assert_eq!(refs("@a#L20-10")[0].1, Some((20, 10)));
}

#[test]
fn malformed_ranges_stay_in_the_path() {
    assert_eq!(refs("@a#L")[0], ("a#L".into(), None, "@a#L".into()));
    assert_eq!(refs("@a#L1x")[0].1, None);
    assert_eq!(refs("@a#L99999999999")[0].1, None);
    assert_eq!(refs("@a#L1-")[0], ("a#L1-".into(), None, "@a#L1-".into()));
    assert_eq!(refs("@#L1")[0], ("#L1".into(), None, "@#L1".into()));
    assert_eq!(refs(r"@a\#L1")[0], ("a#L1".into(), None, r"@a\#L1".into()));
}

#[test]
fn literal_name_with_hash() {
    assert_eq!(literal_path("@a#L1"), Some("a#L1".into()));
    assert_eq!(literal_path("@a#L1-3"), Some("a#L1-3".into()));
    assert_eq!(literal_path("@a"), None);
    assert_eq!(literal_path(r##"@"a"#L1"##), None);
}

#[test]
fn directories_keep_the_trailing_slash() {
    assert_eq!(paths("list @src/ and @src"), vec!["src/", "src"]);
}

#[test]
fn segments_cover_the_input() {
    let input = r##"a @x.rs, b @"y z"#L2 c"##;
    let parsed = parse(input);
    assert_eq!(
        parsed.segments,
        vec![
            Segment::Text { text: "a ".into() },
            Segment::FileRef {
                raw: "@x.rs".into(),
                path: "x.rs".into(),
                range: None
            },
            Segment::Text {
                text: ", b ".into()
            },
            Segment::FileRef {
                raw: r##"@"y z"#L2"##.into(),
                path: "y z".into(),
                range: Some(LineRange { start: 2, end: 2 })
            },
            Segment::Text { text: " c".into() },
        ]
    );
}

#[test]
fn unicode_paths_and_neighbours() {
    assert_eq!(paths("voir @café/naïve.txt."), vec!["café/naïve.txt"]);
    assert!(paths("é@x").is_empty(), "a letter before @ makes an e-mail");
    assert_eq!(paths("→@x"), vec!["x"]);
}

fn reconstruct(parsed: &Parsed) -> String {
    parsed
        .segments
        .iter()
        .map(|s| match s {
            Segment::Text { text } => text.as_str(),
            Segment::FileRef { raw, .. } => raw.as_str(),
        })
        .collect()
}

fn arbitrary_prompt() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        any::<String>(),
        "[ a-z@.#L0-9\\\\\"/,;:!?)(\\]\\[{}-]{0,12}",
        Just("@".to_owned()),
        Just("\\@".to_owned()),
        Just("@\"".to_owned()),
        Just("#L".to_owned()),
        Just("é".to_owned()),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_and_round_trips(input in arbitrary_prompt()) {
        let parsed = parse(&input);
        prop_assert_eq!(reconstruct(&parsed), input.clone());
        prop_assert_eq!(parsed.mentions.len(), parsed.segments.iter().filter(|s| matches!(s, Segment::FileRef { .. })).count());
        let mut fileref_raws = parsed.segments.iter().filter_map(|s| match s {
            Segment::FileRef { raw, path, range } => Some((raw.clone(), path.clone(), *range)),
            Segment::Text { .. } => None,
        });
        let mut last_end = 0;
        for m in &parsed.mentions {
            prop_assert!(m.span.start >= last_end);
            last_end = m.span.end;
            let raw = &input[m.span.clone()];
            prop_assert!(raw.starts_with('@'));
            prop_assert!(!m.path.is_empty());
            let (seg_raw, seg_path, seg_range) = fileref_raws.next().unwrap_or_default();
            prop_assert_eq!(raw, seg_raw.as_str());
            prop_assert_eq!(&m.path, &seg_path);
            prop_assert_eq!(m.range, seg_range);
            if m.range.is_some() {
                prop_assert!(raw.contains("#L"));
            }
        }
        for s in &parsed.segments {
            if let Segment::Text { text } = s {
                prop_assert!(!text.is_empty());
            }
        }
    }

    #[test]
    fn text_without_at_is_one_segment(input in "[^@]{1,64}") {
        let parsed = parse(&input);
        prop_assert_eq!(parsed.segments, vec![Segment::Text { text: input }]);
    }

    #[test]
    fn literal_path_never_panics(input in arbitrary_prompt()) {
        let _ = literal_path(&input);
    }
}
