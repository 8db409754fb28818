//! Markdown answers rendered for the terminal: headings bold, emphasis, inline code coloured,
//! lists with bullets or numbers, fenced code indented and highlighted by its language
//! (`highlight`), block quotes with a bar, tables with aligned columns, links with their target. Every piece
//! of text is escaped first, so that nothing in an answer can drive the terminal. Without
//! colour the same layout is drawn without escape sequences.

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
}

/// `markdown` rendered for a terminal with `style`.
pub(crate) fn render(markdown: &str, style: Style) -> String {
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
    };
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(markdown, options) {
        r.event(event);
    }
    r.end_line();
    r.out
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
