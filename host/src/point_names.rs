//! Call points are named once, by [`CallPoint`](crate::domain::CallPoint): no other source
//! file spells one as a string literal (spans, audit records, failures and replay all go
//! through the type). Checked on the source text, code outside `#[cfg(test)]` modules.

use std::path::Path;

use crate::domain::CallPoint;
use crate::layering::files;

/// The file that names them, and literals that are the same word for something else.
const DEFINES: &str = "domain/point.rs";
const OTHER_MEANINGS: &[(&str, &str)] = &[
    // `Source::Compaction`: where a history record came from.
    ("domain/item.rs", "compaction"),
    // The span of a compaction run.
    ("worker/turn/compact.rs", "compaction"),
];

/// Every `"<point>"` literal in `text` outside its test module, as `(line, name)`.
fn literals(text: &str) -> Vec<(usize, &'static str)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or_default();
        for point in CallPoint::ALL {
            if line.contains(&format!("\"{}\"", point.name())) {
                found.push((number + 1, point.name()));
            }
        }
    }
    found
}

#[test]
fn call_point_names_are_spelled_only_by_the_type() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    files(&src, &mut sources);
    assert!(sources.len() > 50, "found only {} sources", sources.len());
    let mut wrong = Vec::new();
    for file in sources {
        let relative = file
            .strip_prefix(&src)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let test_file = relative.ends_with("_tests.rs")
            || relative.ends_with("/tests.rs")
            || relative.contains("/tests/");
        if relative == DEFINES || test_file {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (line, name) in literals(&text) {
            if !OTHER_MEANINGS.contains(&(relative.as_str(), name)) {
                wrong.push(format!("src/{relative}:{line}: \"{name}\""));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "call-point names spelled as string literals (use `CallPoint`):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_sees_a_literal_and_skips_tests_and_comments() {
    let text = "fn a() { run(\"pre-tool-call\"); } // \"on-event\"\n#[cfg(test)]\nmod tests { \"on-turn-end\" }";
    assert_eq!(literals(text), [(1, "pre-tool-call")]);
}
