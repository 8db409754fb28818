//! The guest's own account of a failed call, read from what it wrote to stderr during that
//! call: an uncaught Python exception (componentize-py prints its traceback before trapping), a
//! JavaScript error (its message and stack) or a Rust panic. The trap itself only says
//! `unreachable` or "Python function threw an unexpected exception"; this is what names the
//! error for the plugin's author.

/// Longest account kept, in characters.
const MAX_CHARS: usize = 600;

/// One line saying what the guest reported, if its stderr holds a traceback, an error or a
/// panic message; control characters escaped.
pub(crate) fn describe(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let found = python_exception(&text)
        .or_else(|| js_error(&text, false))
        .or_else(|| rust_panic(&text))
        .or_else(|| js_error(&text, true))?;
    Some(cap(&crate::domain::escape::escape(&found)))
}

/// `KeyError: 'x' (at app.py, line 12, in call: args["x"])` from the last traceback.
fn python_exception(text: &str) -> Option<String> {
    let start = text.rfind("Traceback (most recent call last):")?;
    let mut frame: Option<String> = None;
    let mut code: Option<&str> = None;
    let mut lines = text[start..].lines().skip(1);
    for line in lines.by_ref() {
        if line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("  File ") {
            frame = Some(frame_place(rest));
            code = None;
        } else if line.starts_with(' ') {
            let trimmed = line.trim();
            // Skip the `^^^^` and `~~~~` markers under the code.
            if code.is_none() && !trimmed.chars().all(|c| matches!(c, '^' | '~')) {
                code = Some(trimmed);
            }
        } else {
            // The exception line: `Type: message` (or just `Type`).
            let mut out = line.trim().to_owned();
            if let Some(frame) = &frame {
                out.push_str(&format!(" (at {frame}"));
                if let Some(code) = code {
                    out.push_str(&format!(": {code}"));
                }
                out.push(')');
            }
            return Some(out);
        }
    }
    None
}

/// `"app.py", line 12, in call` as `app.py, line 12, in call`.
fn frame_place(rest: &str) -> String {
    rest.replacen('"', "", 2)
}

/// A JavaScript error as componentize-js (StarlingMonkey) prints an uncaught one: its message
/// (without the error's name), `Stack:`, then the frames (`fn@file:line:col`); the message and
/// the innermost frame. The first such block of the call: an `Error` thrown from a function
/// that returns a `result` is taken for its `err` string, fails to encode, and that failure
/// follows as a second block; the JavaScript templates print the error (with its name) in the
/// same form before it propagates. With `loose` (tried after a Rust panic), a line
/// `TypeError: message` and its frames.
fn js_error(text: &str, loose: bool) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let (message, frames) = match lines.iter().position(|line| line.trim() == "Stack:") {
        Some(at) if at > 0 => (lines[at - 1].trim(), &lines[at + 1..]),
        _ if loose => {
            let at = lines.iter().rposition(|line| is_js_error_line(line))?;
            (lines[at].trim(), &lines[at + 1..])
        }
        _ => return None,
    };
    let mut out = message.to_owned();
    if let Some(frame) = frames
        .iter()
        .map(|l| l.trim())
        .take_while(|l| !l.is_empty())
        .find(|l| l.contains('@') && l.contains(':'))
    {
        out.push_str(&format!(" (at {frame})"));
    }
    Some(out)
}

/// `TypeError: …`, `RangeError: …`, `Error: …`, after an optional `Uncaught ` or `Error: `
/// prefix of the engine.
fn is_js_error_line(line: &str) -> bool {
    let line = line.trim();
    let line = line.strip_prefix("Uncaught ").unwrap_or(line);
    let Some((name, _)) = line.split_once(": ") else {
        return false;
    };
    name.ends_with("Error")
        && name.chars().all(|c| c.is_ascii_alphanumeric())
        && name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// `panicked at src/lib.rs:10:5: message` from a Rust guest's panic.
fn rust_panic(text: &str) -> Option<String> {
    let start = text.rfind("panicked at")?;
    let mut lines = text[start..].lines();
    let location = lines.next().unwrap_or("").trim().trim_end_matches(':');
    let message = lines.next().unwrap_or("").trim();
    Some(format!("{location}: {message}"))
}

fn cap(text: &str) -> String {
    let mut out: String = text.chars().take(MAX_CHARS).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_traceback_gives_the_exception_and_its_last_frame() {
        let stderr = b"print output\nTraceback (most recent call last):\n  File \"/lib/x.py\", line 3, in wrapper\n    return f()\n           ^^^\n  File \"app.py\", line 42, in call\n    args[\"x\"]\n    ~~~~^^^^^\nKeyError: 'x'\n\nthread '<unnamed>' panicked at src/lib.rs:1:1:\nPython function threw an unexpected exception\n";
        assert_eq!(
            describe(stderr).as_deref(),
            Some("KeyError: 'x' (at app.py, line 42, in call: args[\"x\"])")
        );
    }

    #[test]
    fn a_componentize_js_error_gives_its_message_and_innermost_frame() {
        let stderr = b"TypeError: can't access property \"length\", text is undefined\nStack:\ncall@app.js:49:14\nexport_act$call@/tmp/x/initializer.js:365:15\n\nexpected a string, received [object]\nStack:\n  _utf8AllocateAndEncode@/tmp/x/initializer.js:59:11\n\nRedirecting call to abort() to mozalloc_abort\n\n";
        assert_eq!(
            describe(stderr).as_deref(),
            Some(
                "TypeError: can't access property \"length\", text is undefined (at call@app.js:49:14)"
            )
        );
    }

    #[test]
    fn a_javascript_error_gives_its_message_and_innermost_frame() {
        let stderr = b"log line\nTypeError: text is undefined\ncall@app.js:47:21\n@app.js:60:3\n";
        assert_eq!(
            describe(stderr).as_deref(),
            Some("TypeError: text is undefined (at call@app.js:47:21)")
        );
    }

    #[test]
    fn a_rust_panic_whose_message_looks_like_a_javascript_error_stays_a_panic() {
        let stderr = b"thread '<unnamed>' panicked at src/lib.rs:3:1:\nIoError: disk full\n";
        assert_eq!(
            describe(stderr).as_deref(),
            Some("panicked at src/lib.rs:3:1: IoError: disk full")
        );
    }

    #[test]
    fn a_rust_panic_gives_its_location_and_message() {
        let stderr = b"noise\n\nthread '<unnamed>' panicked at src/lib.rs:10:5:\nboom here\nnote: run with RUST_BACKTRACE\n";
        assert_eq!(
            describe(stderr).as_deref(),
            Some("panicked at src/lib.rs:10:5: boom here")
        );
        assert_eq!(describe(b"all fine"), None);
    }

    #[test]
    fn control_characters_are_escaped_and_length_is_capped() {
        let mut stderr = b"Traceback (most recent call last):\nValueError: \x1b[31mred".to_vec();
        stderr.extend(std::iter::repeat_n(b'x', 2000));
        let text = describe(&stderr).unwrap();
        assert!(!text.contains('\x1b'), "{text}");
        assert!(text.starts_with("ValueError: "), "{text}");
        assert!(text.chars().count() <= MAX_CHARS + 1, "{}", text.len());
    }
}
