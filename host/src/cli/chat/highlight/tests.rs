use proptest::prelude::*;

use super::*;

/// The tokens `highlight` would colour in `code` fenced as `lang`, as (kind, text).
fn tokens(lang: &str, code: &str) -> Vec<(Kind, String)> {
    let text = terminal(code);
    let spans = match family(lang) {
        Some(Family::Code(syntax)) => code::lex(&text, syntax),
        Some(Family::Shell) => shell::lex(&text),
        Some(Family::Console) => shell::console(&text),
        Some(Family::Diff) => shell::diff(&text),
        None => return Vec::new(),
    };
    spans
        .spans
        .into_iter()
        .map(|(kind, start, end)| (kind, text[start..end].to_owned()))
        .collect()
}

fn has(tokens: &[(Kind, String)], kind: Kind, text: &str) -> bool {
    tokens.iter().any(|(k, t)| *k == kind && t == text)
}

/// For one language: a keyword is one, a keyword inside a string is part of the string, a
/// string inside a comment is part of the comment, and an unterminated string runs to the
/// end of the block.
fn check(lang: &str, keyword: &str, string: &str, comment: &str, unterminated: &str) {
    let t = tokens(lang, keyword);
    assert!(
        t.iter().any(|(k, _)| *k == Kind::Keyword),
        "{lang}: {keyword:?} gave {t:?}"
    );
    let t = tokens(lang, string);
    let strings: Vec<&str> = t
        .iter()
        .filter(|(k, _)| *k == Kind::Str)
        .map(|(_, s)| s.as_str())
        .collect();
    assert!(
        !strings.is_empty()
            && t.iter().all(|(k, word)| *k != Kind::Keyword
                || !strings.iter().any(|s| s.contains(word.as_str()))),
        "{lang}: {string:?} gave {t:?}"
    );
    let t = tokens(lang, comment);
    assert!(
        t.iter().any(|(k, _)| *k == Kind::Comment) && t.iter().all(|(k, _)| *k != Kind::Str),
        "{lang}: {comment:?} gave {t:?}"
    );
    let t = tokens(lang, unterminated);
    let last = t.last().map(|(k, s)| (*k, s.as_str()));
    assert!(
        matches!(last, Some((Kind::Str, s)) if unterminated.ends_with(s)),
        "{lang}: {unterminated:?} gave {t:?}"
    );
    // The same cut off anywhere never panics and keeps every byte.
    for cut in 0..=unterminated.len() {
        if let Some(part) = unterminated.get(..cut) {
            let shown = highlight(lang, part, Style::coloured());
            assert_eq!(strip(&shown), terminal(part), "{lang}: {part:?}");
        }
    }
}

#[test]
fn rust() {
    check(
        "rust",
        "fn main() {}",
        "let s = \"fn if\";",
        "// say \"hi\"\nx",
        "let s = \"fn",
    );
    let t = tokens(
        "rust",
        "fn f<'a>(x: &'a str) -> char { 'x' }\nlet r = r#\"a \"fn\" b\"#; 0x1f",
    );
    assert!(has(&t, Kind::Str, "'x'"), "{t:?}");
    assert!(!t.iter().any(|(_, s)| s.starts_with("'a")), "{t:?}");
    assert!(has(&t, Kind::Str, "r#\"a \"fn\" b\"#"), "{t:?}");
    assert!(has(&t, Kind::Number, "0x1f"), "{t:?}");
    let t = tokens("rust", "/* a \"b\" */ 1..2");
    assert!(
        has(&t, Kind::Comment, "/* a \"b\" */") && has(&t, Kind::Number, "1"),
        "{t:?}"
    );
}

#[test]
fn python() {
    check(
        "py",
        "def f(): pass",
        "s = 'import'",
        "# it's \"quoted\"\n",
        "x = \"\"\"def\nclass",
    );
    let t = tokens("python", "x = 3.14 if y else None");
    assert!(
        has(&t, Kind::Number, "3.14") && has(&t, Kind::Keyword, "None"),
        "{t:?}"
    );
}

#[test]
fn javascript_and_typescript() {
    check(
        "js",
        "const x = 1;",
        "f(`return ${x}`)",
        "// 'a' \"b\"",
        "let s = `multi\nline",
    );
    check("ts", "interface A {}", "'type'", "/* \"x\" */", "x = 'let");
    assert!(has(&tokens("js", "let $el = 2"), Kind::Keyword, "let"));
    assert!(!has(&tokens("js", "$let"), Kind::Keyword, "let"));
}

#[test]
fn shell() {
    check(
        "bash",
        "if true; then ls; fi",
        "echo 'if then'",
        "# \"quoted\" note",
        "echo \"open",
    );
    let t = tokens(
        "sh",
        "FOO=1 grep -rn \"$x\" ${HOME}/src | wc -l # count\nsudo $(which ls) 2",
    );
    for (kind, text) in [
        (Kind::Command, "grep"),
        (Kind::Flag, "-rn"),
        (Kind::Str, "\"$x\""),
        (Kind::Variable, "${HOME}"),
        (Kind::Command, "wc"),
        (Kind::Flag, "-l"),
        (Kind::Comment, "# count"),
        (Kind::Command, "sudo"),
        (Kind::Command, "which"),
        (Kind::Number, "2"),
    ] {
        assert!(has(&t, kind, text), "{kind:?} {text:?} in {t:?}");
    }
    assert!(!t.iter().any(|(_, s)| s.starts_with("FOO")), "{t:?}");
    // A continued line keeps its arguments arguments.
    let t = tokens("sh", "cargo build \\\n  --release");
    assert!(has(&t, Kind::Flag, "--release"), "{t:?}");
    let t = tokens("sh", "echo 'x");
    assert!(has(&t, Kind::Str, "'x"), "{t:?}");
}

#[test]
fn console_highlights_commands_after_the_prompt_only() {
    let t = tokens("console", "$ cargo test --lib\nrunning 3 tests\n");
    assert!(
        has(&t, Kind::Command, "cargo") && has(&t, Kind::Flag, "--lib"),
        "{t:?}"
    );
    assert!(!t.iter().any(|(_, s)| s.contains("running")), "{t:?}");
}

#[test]
fn json() {
    check(
        "json",
        "[true, null]",
        "{\"a\": \"true\"}",
        "// \"x\"\n{}",
        "{\"a\": \"tru",
    );
    assert!(has(
        &tokens("json", "{\"n\": -1.5e3}"),
        Kind::Number,
        "1.5e3"
    ));
}

#[test]
fn toml() {
    check(
        "toml",
        "a = true",
        "a = 'false'",
        "# \"x\" = 1",
        "a = \"\"\"true\n",
    );
    let t = tokens("toml", "[model]\nname = 'C:\\path'\n[[plugins]]\n");
    assert!(
        has(&t, Kind::Keyword, "[model]") && has(&t, Kind::Keyword, "[[plugins]]"),
        "{t:?}"
    );
    assert!(has(&t, Kind::Str, "'C:\\path'"), "{t:?}");
}

#[test]
fn yaml() {
    check("yaml", "on: push", "- \"yes\"", "# 'a': \"b\"", "a: 'no");
    let t = tokens(
        "yml",
        "jobs:\n  - runs-on: ubuntu # os\n    url: http://x#y\n",
    );
    assert!(
        has(&t, Kind::Keyword, "jobs") && has(&t, Kind::Keyword, "runs-on"),
        "{t:?}"
    );
    assert!(
        has(&t, Kind::Comment, "# os") && !has(&t, Kind::Comment, "#y"),
        "{t:?}"
    );
}

#[test]
fn c_family() {
    check(
        "c",
        "int main(void)",
        "puts(\"return\");",
        "// \"x\"",
        "char *s = \"while",
    );
    check(
        "cpp",
        "class A {};",
        "\"nullptr\"",
        "/* \"x\" */",
        "auto s = \"new",
    );
    check(
        "go",
        "func main() {}",
        "`package`",
        "// \"x\"",
        "s := `go\nto",
    );
    check(
        "java",
        "public class A {}",
        "\"static\"",
        "// \"x\"",
        "String s = \"new",
    );
    let t = tokens("c", "#include <stdio.h>\n  # define N 1\nx = '\\n';");
    assert!(
        has(&t, Kind::Keyword, "#include") && has(&t, Kind::Keyword, "# define"),
        "{t:?}"
    );
    assert!(has(&t, Kind::Str, "'\\n'"), "{t:?}");
}

#[test]
fn diff_lines() {
    let t = tokens("diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n");
    for (kind, text) in [
        (Kind::Header, "--- a/x"),
        (Kind::Header, "+++ b/x"),
        (Kind::Hunk, "@@ -1 +1 @@"),
        (Kind::Removed, "-old"),
        (Kind::Added, "+new"),
    ] {
        assert!(has(&t, kind, text), "{kind:?} {text:?} in {t:?}");
    }
    assert_eq!(t.len(), 5, "{t:?}");
}

#[test]
fn the_language_is_the_first_word_of_the_info_string() {
    assert!(matches!(family("Rust,ignore"), Some(Family::Code(_))));
    assert!(matches!(family("bash title=x"), Some(Family::Shell)));
    assert!(family("haskell").is_none());
}

#[test]
fn colour_wraps_tokens_and_other_languages_stay_one_colour() {
    let shown = highlight("rust", "fn x() {}\n", Style::coloured());
    assert_eq!(shown, "\x1b[35mfn\x1b[0m x() {}\n");
    assert_eq!(
        highlight("haskell", "main = x\n\ny", Style::coloured()),
        "\x1b[36mmain = x\x1b[0m\n\n\x1b[36my\x1b[0m"
    );
    assert_eq!(
        highlight("rust", "fn x() {}\n", Style::plain()),
        "fn x() {}\n"
    );
}

#[test]
fn model_text_cannot_drive_the_terminal_from_inside_a_token() {
    let shown = highlight(
        "sh",
        "echo \"\u{1b}[2J\u{9b}31m\" # \u{202e}x\r",
        Style::coloured(),
    );
    assert!(
        !shown.contains("\u{1b}[2J") && !shown.contains('\u{9b}'),
        "{shown:?}"
    );
    assert!(
        !shown.contains('\u{202e}') && !shown.contains('\r'),
        "{shown:?}"
    );
    assert!(shown.contains("\\u{1b}[2J"), "{shown:?}");
}

/// `text` without its SGR sequences.
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('m').map_or(after.len(), |n| n + 1);
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

const LANGS: &[&str] = &[
    "rust", "python", "js", "ts", "sh", "console", "json", "toml", "yaml", "diff", "c", "cpp",
    "go", "java", "other",
];

proptest! {
    /// Whatever the language and the code, taking the colour out gives back exactly the
    /// escaped code, and every line closes the colours it opens.
    #[test]
    fn stripping_colour_gives_the_escaped_code(
        lang in proptest::sample::select(LANGS),
        code in prop_oneof![
            ".{0,60}",
            "([a-z ]{0,5}|fn|if|'|\"|`|#|//|/\\*|\\*/|\\\\|\\$|\\{|\\}|-|\\n|:|\\[|\\]|r#|0|\\.|\u{1b}|é|\u{202e}|\\r){0,40}",
        ],
    ) {
        let shown = highlight(lang, &code, Style::coloured());
        prop_assert_eq!(strip(&shown), terminal(&code).into_owned());
        for line in shown.split('\n') {
            if let Some(at) = line.rfind("\x1b[") {
                prop_assert!(line[at..].starts_with("\x1b[0m"), "{:?}", line);
            }
        }
        prop_assert_eq!(highlight(lang, &code, Style::plain()), terminal(&code).into_owned());
    }
}
