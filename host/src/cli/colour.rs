//! Colour on stderr: only on a terminal, never when `NO_COLOR` is set (to anything non-empty).

use std::io::IsTerminal;

/// True when stderr is a terminal and `NO_COLOR` is unset or empty.
pub(crate) fn stderr_colour() -> bool {
    allowed(
        std::env::var_os("NO_COLOR").as_deref(),
        std::io::stderr().is_terminal(),
    )
}

fn allowed(no_colour: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
    terminal && no_colour.is_none_or(|v| v.is_empty())
}

/// `text` in the ANSI colour `code` (e.g. `33` yellow) when `on`.
pub(crate) fn paint(text: &str, code: u8, on: bool) -> String {
    if on {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_colour_off_a_terminal_or_under_no_color() {
        assert!(allowed(None, true));
        assert!(allowed(Some("".as_ref()), true));
        assert!(!allowed(Some("1".as_ref()), true));
        assert!(!allowed(None, false));
        assert_eq!(paint("x", 33, false), "x");
        assert_eq!(paint("x", 33, true), "\x1b[33mx\x1b[0m");
    }
}
