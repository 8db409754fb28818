//! Where a prompt comes from: the command line, stdin (`-`) or a file (`--file`), refused
//! when empty or over `worker.max_prompt_bytes`, before anything is committed.

use std::io::Read;
use std::path::Path;

use crate::cli::exit::CliError;

/// The prompt from `words` (`-` alone reads stdin) or from `file`, at most `max` bytes.
pub(crate) fn read(words: &[String], file: Option<&Path>, max: u64) -> Result<String, CliError> {
    let text = match (file, words) {
        (Some(_), [_, ..]) => {
            return Err(CliError::usage(
                "give the prompt either as arguments or with --file, not both",
            ));
        }
        (Some(path), []) => {
            let file = std::fs::File::open(path).map_err(|err| {
                CliError::usage(format!(
                    "cannot read the prompt file {}: {err}",
                    path.display()
                ))
            })?;
            capped(file, max, &format!("the prompt file {}", path.display()))?
        }
        (None, [dash]) if dash == "-" => capped(std::io::stdin().lock(), max, "standard input")?,
        (None, words) => words.join(" "),
    };
    check(&text, max)?;
    Ok(text)
}

/// Refuse an empty prompt or one over `max` bytes.
pub(crate) fn check(text: &str, max: u64) -> Result<(), CliError> {
    if text.trim().is_empty() {
        return Err(CliError::usage("the prompt is empty"));
    }
    if text.len() as u64 > max {
        return Err(too_long(text.len() as u64, max));
    }
    Ok(())
}

fn too_long(bytes: u64, max: u64) -> CliError {
    CliError::usage(format!(
        "the prompt is {bytes} bytes, over the limit of {max} (worker.max_prompt_bytes); \
         nothing was sent or committed"
    ))
}

/// Read at most `max + 1` bytes, so an endless stream is refused instead of exhausting memory.
fn capped(reader: impl Read, max: u64, what: &str) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| CliError::usage(format!("cannot read the prompt from {what}: {err}")))?;
    if bytes.len() as u64 > max {
        return Err(CliError::usage(format!(
            "the prompt from {what} is over the limit of {max} bytes (worker.max_prompt_bytes); \
             nothing was sent or committed"
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| CliError::usage(format!("the prompt from {what} is not UTF-8 text")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_sources() {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(read(&words(&["a", "b"]), None, 10).unwrap(), "a b");
        assert!(read(&words(&[" "]), None, 10).is_err());
        let err = read(&words(&["abcdefghijk"]), None, 10).unwrap_err();
        assert!(
            err.message.contains("worker.max_prompt_bytes"),
            "{}",
            err.message
        );
        assert_eq!(err.code, crate::cli::EXIT_USAGE);
        let long = capped("x".repeat(11).as_bytes(), 10, "test").unwrap_err();
        assert!(long.message.contains("worker.max_prompt_bytes"));
        assert!(capped(&[0xff, 0xfe][..], 10, "test").is_err());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.md");
        std::fs::write(&path, "from file").unwrap();
        assert_eq!(read(&[], Some(&path), 100).unwrap(), "from file");
        assert!(read(&words(&["x"]), Some(&path), 100).is_err());
    }
}
