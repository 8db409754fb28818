//! How the transcript looks: colour only on a terminal and without `NO_COLOR`.

use std::io::IsTerminal;

use crate::domain::{Alert, AlertLevel};

/// Colours for one output stream, or none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    colour: bool,
}

impl Style {
    /// Colour when stderr is a terminal and `NO_COLOR` is unset or empty.
    pub(crate) fn detect() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self {
            colour: !no_color && std::io::stderr().is_terminal(),
        }
    }

    /// Plain text always.
    #[cfg(test)]
    pub(crate) fn plain() -> Self {
        Self { colour: false }
    }

    /// Colour always.
    #[cfg(test)]
    pub(crate) fn coloured() -> Self {
        Self { colour: true }
    }

    /// `text` in the SGR `code` (`1` bold, `36` cyan …) when colour is on.
    pub(crate) fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Secondary information (attached files, tool calls, retries).
    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// A diff's removed line.
    pub(crate) fn removed(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// A diff's added line.
    pub(crate) fn added(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// A diff's hunk header.
    pub(crate) fn hunk(self, text: &str) -> String {
        self.paint("36", text)
    }

    /// Headings and names.
    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// One alert line: its level stands out by colour on a terminal and by its prefix always.
    pub(crate) fn alert(self, alert: &Alert) -> String {
        let (code, level) = match alert.level {
            AlertLevel::Info => ("36", "info"),
            AlertLevel::Warn => ("33", "warning"),
            AlertLevel::Error => ("1;31", "error"),
        };
        format!(
            "{} [{}]: {}",
            self.paint(code, level),
            alert.source,
            alert.message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_has_no_escapes_and_colour_has() {
        let alert = Alert::warn("fileref", "@x not included");
        assert_eq!(
            Style::plain().alert(&alert),
            "warning [fileref]: @x not included"
        );
        let coloured = Style { colour: true }.alert(&alert);
        assert!(coloured.contains("\x1b[33mwarning\x1b[0m"), "{coloured}");
        assert_eq!(Style::plain().dim("x"), "x");
    }
}
