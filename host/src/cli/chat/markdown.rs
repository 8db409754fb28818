//! Markdown answers rendered for the terminal: headings bold, emphasis, inline code coloured,
//! lists with bullets or numbers, fenced code indented and highlighted by its language
//! (`highlight`), block quotes with a bar, tables with aligned columns, links with their target. Every piece
//! of text is escaped first, so that nothing in an answer can drive the terminal. Without
//! colour the same layout is drawn without escape sequences. Prose is word-wrapped to the
//! terminal's width ([`render_width`]), a wrapped line indented under its list item or quote;
//! code blocks and tables are left as they are.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use unicode_width::UnicodeWidthStr;

use super::highlight::highlight;
use super::style::Style;
use crate::domain::escape::terminal;

/// One list being drawn: the next number of an ordered one.
struct List {
    next: Option<u64>,
}

/// A table being collected: rows of cells, the header first.
#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
    cell: String,
}

/// Renders complete Markdown blocks.
struct Renderer {
    style: Style,
    out: String,
    /// Inline styles open, as SGR codes, to re-apply after a reset.
    inline: Vec<&'static str>,
    lists: Vec<List>,
    quote: usize,
    /// The fenced code block being collected: its language and its text so far.
    code: Option<(String, String)>,
    table: Option<Table>,
    link: Option<String>,
    /// Text is on the current line.
    mid_line: bool,
    /// Byte ranges of `out` drawn as they are (code blocks, tables): never re-wrapped.
    verbatim: Vec<std::ops::Range<usize>>,
}

/// `markdown` rendered for a terminal with `style`, lines as long as the text makes them.
#[cfg(test)]
pub(crate) fn render(markdown: &str, style: Style) -> String {
    render_width(markdown, style, usize::MAX)
}

/// `markdown` rendered for a terminal `columns` wide: prose is wrapped at spaces so that no
/// word is cut at the edge; code blocks and tables are not re-wrapped.
pub(crate) fn render_width(markdown: &str, style: Style, columns: usize) -> String {
    let mut r = Renderer {
        style,
        out: String::new(),
        inline: Vec::new(),
        lists: Vec::new(),
        quote: 0,
        code: None,
        table: None,
        link: None,
        mid_line: false,
        verbatim: Vec::new(),
    };
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(markdown, options) {
        r.event(event);
    }
    r.end_line();
    if columns == usize::MAX {
        return r.out;
    }
    let mut wrapped = String::with_capacity(r.out.len());
    let mut at = 0;
    for line in r.out.split_inclusive('\n') {
        let start = at;
        at += line.len();
        if r.verbatim.iter().any(|range| range.contains(&start)) {
            wrapped.push_str(line);
            continue;
        }
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        wrapped.push_str(&wrap_line(body, columns));
        wrapped.push_str(end);
    }
    wrapped
}

/// The visible width of `text`: its SGR sequences take no column.
fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        width += rest[..at].width();
        rest = &rest[at..];
        // An SGR sequence ends at its `m`; anything else was escaped before it got here.
        match rest.find('m') {
            Some(end) => rest = &rest[end + 1..],
            None => return width,
        }
    }
    width + rest.width()
}

/// The hanging part of a rendered line: its quote bars, indentation and list marker; and the
/// prefix its wrapped lines take (the bars, then spaces as wide as the rest).
fn hanging(line: &str) -> (&str, String) {
    let mut end = 0;
    let mut rest = line;
    while let Some(after) = rest.strip_prefix("│ ") {
        end += "│ ".len();
        rest = after;
    }
    let bars = &line[..end];
    let spaces = rest.len() - rest.trim_start_matches(' ').len();
    end += spaces;
    rest = &rest[spaces..];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if rest.starts_with("• ") {
        end += "• ".len();
    } else if digits > 0 && rest[digits..].starts_with(". ") {
        end += digits + 2;
    }
    let head = &line[..end];
    let continued = format!("{bars}{}", " ".repeat(head[bars.len()..].width()));
    (head, continued)
}

/// `line` broken at spaces into lines of at most `columns` columns (a single word wider than
/// that stays whole on its own line); wrapped lines keep the line's hanging indent.
fn wrap_line(line: &str, columns: usize) -> String {
    if visible_width(line) <= columns {
        return line.to_owned();
    }
    let (head, continued) = hanging(line);
    let indent = continued.width();
    let mut out = head.to_owned();
    let mut used = head.width();
    let mut empty = true;
    for word in line[head.len()..].split(' ') {
        let width = visible_width(word);
        if !empty && used + 1 + width > columns {
            out.push('\n');
            out.push_str(&continued);
            used = indent;
            empty = true;
        }
        if !empty {
            out.push(' ');
            used += 1;
        }
        out.push_str(word);
        used += width;
        empty = false;
    }
    out
}

impl Renderer {
    fn paint(&self, code: &str, text: &str) -> String {
        self.style.paint(code, text)
    }

    fn prefix(&self) -> String {
        let mut p = "│ ".repeat(self.quote);
        if !self.lists.is_empty() {
            p.push_str(&"  ".repeat(self.lists.len().saturating_sub(1)));
        }
        p
    }

    fn end_line(&mut self) {
        if self.mid_line {
            self.out.push('\n');
            self.mid_line = false;
        }
    }

    fn blank(&mut self) {
        self.end_line();
        if !self.out.is_empty() && !self.out.ends_with("\n\n") && self.lists.is_empty() {
            self.out.push('\n');
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(table) = &mut self.table {
            table.cell.push_str(&terminal(text));
            return;
        }
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
            return;
        }
        let text = terminal(text);
        let codes = self.inline.join(";");
        for (n, piece) in text.split('\n').enumerate() {
            if n > 0 {
                self.out.push('\n');
                self.mid_line = false;
            }
            if piece.is_empty() {
                continue;
            }
            if !self.mid_line {
                let prefix = self.prefix();
                self.out.push_str(&prefix);
                self.mid_line = true;
            }
            if codes.is_empty() {
                self.out.push_str(piece);
            } else {
                let painted = self.paint(&codes, piece);
                self.out.push_str(&painted);
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                if let Some(table) = &mut self.table {
                    table.cell.push_str(&terminal(&code));
                } else {
                    let shown = self.paint("36", &terminal(&code));
                    if !self.mid_line {
                        let prefix = self.prefix();
                        self.out.push_str(&prefix);
                        self.mid_line = true;
                    }
                    self.out.push_str(&shown);
                }
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => {
                self.out.push('\n');
                self.mid_line = false;
            }
            Event::Rule => {
                self.blank();
                self.out.push_str(&self.paint("2", &"─".repeat(40)));
                self.out.push('\n');
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph if self.lists.is_empty() => self.blank(),
            Tag::Heading { level, .. } => {
                self.blank();
                self.inline.push(match level {
                    HeadingLevel::H1 => "1;4",
                    _ => "1",
                });
            }
            Tag::BlockQuote(_) => {
                self.blank();
                self.quote += 1;
            }
            Tag::CodeBlock(kind) => {
                self.blank();
                let mut language = String::new();
                if let CodeBlockKind::Fenced(lang) = kind
                    && !lang.is_empty()
                {
                    let label = self.paint("2", &format!("  {}", terminal(&lang)));
                    let prefix = self.prefix();
                    self.out.push_str(&format!("{prefix}{label}\n"));
                    language = lang.to_string();
                }
                self.code = Some((language, String::new()));
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.blank();
                } else {
                    self.end_line();
                }
                self.lists.push(List { next: start });
            }
            Tag::Item => {
                self.end_line();
                let marker = match self.lists.last_mut() {
                    Some(List { next: Some(n) }) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_owned(),
                };
                let prefix = self.prefix();
                self.out.push_str(&format!("{prefix}{marker}"));
                self.mid_line = true;
            }
            Tag::Emphasis => self.inline.push("3"),
            Tag::Strong => self.inline.push("1"),
            Tag::Strikethrough => self.inline.push("9"),
            Tag::Link { dest_url, .. } => {
                self.inline.push("4");
                self.link = Some(dest_url.to_string());
            }
            Tag::Table(_) => {
                self.blank();
                self.table = Some(Table::default());
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.cell.clear();
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.end_line(),
            TagEnd::Heading(_) => {
                self.inline.pop();
                self.end_line();
            }
            TagEnd::BlockQuote(_) => {
                self.end_line();
                self.quote = self.quote.saturating_sub(1);
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    self.draw_code(&lang, &code);
                }
                self.end_line();
            }
            TagEnd::List(_) => {
                self.end_line();
                self.lists.pop();
            }
            TagEnd::Item => self.end_line(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.inline.pop();
            }
            TagEnd::Link => {
                self.inline.pop();
                if let Some(url) = self.link.take() {
                    let shown = self.paint("2", &format!(" ({})", terminal(&url)));
                    if self.table.is_none() {
                        self.out.push_str(&shown);
                    }
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let cell = std::mem::take(&mut t.cell);
                    if let Some(row) = t.rows.last_mut() {
                        row.push(cell);
                    }
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.draw_table(&table);
                }
            }
            _ => {}
        }
    }

    /// A fenced code block, highlighted, each line indented under the current prefix.
    fn draw_code(&mut self, lang: &str, code: &str) {
        let start = self.out.len();
        self.draw_code_lines(lang, code);
        self.verbatim.push(start..self.out.len());
    }

    fn draw_code_lines(&mut self, lang: &str, code: &str) {
        let shown = highlight(lang, code, self.style);
        let prefix = self.prefix();
        for (n, line) in shown.split('\n').enumerate() {
            if n > 0 {
                self.out.push('\n');
                self.mid_line = false;
            }
            if line.is_empty() {
                continue;
            }
            if !self.mid_line {
                self.out.push_str(&prefix);
                self.out.push_str("  ");
                self.mid_line = true;
            }
            self.out.push_str(line);
        }
    }

    fn draw_table(&mut self, table: &Table) {
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut widths = vec![0usize; columns];
        for row in &table.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell.width());
            }
        }
        let prefix = self.prefix();
        let start = self.out.len();
        for (n, row) in table.rows.iter().enumerate() {
            let mut line = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = row.get(i).map(String::as_str).unwrap_or("");
                let pad = " ".repeat(width.saturating_sub(cell.width()));
                let cell = if n == 0 {
                    self.paint("1", cell)
                } else {
                    cell.to_owned()
                };
                if i > 0 {
                    line.push_str(" │ ");
                }
                line.push_str(&cell);
                line.push_str(&pad);
            }
            self.out.push_str(&format!("{prefix}{}\n", line.trim_end()));
            if n == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                self.out
                    .push_str(&format!("{prefix}{}\n", rule.join("─┼─")));
            }
        }
        self.verbatim.push(start..self.out.len());
        self.mid_line = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_each_kind_of_block_without_its_markup() {
        let md = "# Title\n\nSome **bold** and *em* and `code`.\n\n- one\n- two\n  1. inner\n\n```rust\nfn main() {}\n```\n\n| a | bb |\n|---|---|\n| 1 | 2 |\n\n> quoted\n";
        let text = render(md, Style::plain());
        assert!(
            text.starts_with("Title\n\nSome bold and em and code.\n"),
            "{text}"
        );
        assert!(text.contains("• one\n• two\n  1. inner\n"), "{text}");
        assert!(text.contains("  rust\n  fn main() {}\n"), "{text}");
        assert!(text.contains("a │ bb\n──┼───\n1 │ 2\n"), "{text}");
        assert!(text.contains("│ quoted\n"), "{text}");
        assert!(!text.contains("**") && !text.contains("```"), "{text}");
    }

    #[test]
    fn prose_wraps_at_spaces_under_its_indent_and_code_stays_whole() {
        let md = "one two three four five six seven\n\n- eight nine ten eleven twelve\n\n> thirteen fourteen fifteen sixteen\n\n```\nlet a_long_line = with + spaces + in + it;\n```\n";
        let text = render_width(md, Style::plain(), 16);
        assert!(
            text.starts_with("one two three\nfour five six\nseven\n"),
            "{text}"
        );
        assert!(
            text.contains("• eight nine ten\n  eleven twelve\n"),
            "{text}"
        );
        assert!(
            text.contains("│ thirteen\n│ fourteen\n│ fifteen\n│ sixteen\n"),
            "{text}"
        );
        assert!(
            text.contains("  let a_long_line = with + spaces + in + it;\n"),
            "{text}"
        );
        for line in text.lines().filter(|l| !l.contains("a_long_line")) {
            assert!(line.width() <= 16, "{line:?} in\n{text}");
        }
        let coloured = render_width("**bold words that wrap here**", Style::coloured(), 12);
        assert_eq!(
            visible_width(coloured.lines().next().unwrap_or_default()),
            10
        );
    }

    #[test]
    fn colour_marks_emphasis_and_answers_cannot_drive_the_terminal() {
        let text = render("**b** \u{1b}[2J", Style::coloured());
        assert!(text.contains("\x1b[1mb\x1b[0m"), "{text:?}");
        assert!(!text.contains("\u{1b}[2J"), "{text:?}");
    }

    #[test]
    fn nested_emphasis_joins_its_codes() {
        let text = render("**bold *both***", Style::coloured());
        assert!(text.contains("\x1b[1;3mboth\x1b[0m"), "{text:?}");
    }

    #[test]
    fn fenced_code_is_highlighted_by_its_language_under_its_prefix() {
        let md = "> ```rust\n> let s = \"\u{1b}[2J\";\n>\n> fn f() {}\n> ```\n";
        let text = render(md, Style::coloured());
        assert!(
            text.contains("│   \x1b[35mlet\x1b[0m s = \x1b[32m\"\\u{1b}[2J\"\x1b[0m;\n"),
            "{text:?}"
        );
        assert!(
            text.contains("\n\n│   \x1b[35mfn\x1b[0m f() {}\n"),
            "{text:?}"
        );
        assert!(!text.contains("\u{1b}[2J"), "{text:?}");
        let plain = render(md, Style::plain());
        assert!(
            plain.contains("│   let s = \"\\u{1b}[2J\";\n\n│   fn f() {}\n"),
            "{plain:?}"
        );
    }
}
