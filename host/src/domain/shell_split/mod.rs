//! A shell command split into the simple commands it would run, for `[[rules]]`.
//!
//! [`split`] parses the text as bash does (lists, pipelines, subshells, groups, `if`/`for`/
//! `while`/`case` bodies, command and process substitutions, here-documents) and returns every
//! simple command it would run, each with its words. Wrappers that run another command
//! (`env`, `nohup`, `timeout`, `nice`, `exec`, `command`, `builtin`, `time`, `xargs`, the
//! `-exec` of `find` up to its `;` or a `+` right after `{}`, `sh -c`/`bash -lc` strings,
//! parsed again) are unwrapped: the wrapper is listed (marked [`SimpleCommand::wrapper`])
//! and so is the command it runs.
//!
//! What cannot be known for certain from the text is listed in [`Split::uncertain`], with the
//! reason: a variable or substitution in command position, `eval`, `source`/`.`, `alias`, a
//! function definition, a shell that reads a script or its standard input, arithmetic that
//! may expand a variable (bash evaluates `$(…)` found in its value), an assignment to a
//! variable that changes what a program reads or runs (`PATH`, `HOME`, `XDG_*`, `BASH_ENV`,
//! `LD_PRELOAD`, `GIT_*`, `PYTHONPATH` …), `xargs` (the words it adds come from standard
//! input), an option of a wrapper it does not know, and text that does not parse. A rule
//! never allows a command with anything uncertain in it. A file a redirection or `time -o`
//! writes is listed in [`Split::writes`].

mod walk;
mod word;
mod wrappers;

pub(crate) use wrappers::exec_end;

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word after quote removal when [`Word::literal`], else its text as written.
    pub text: String,
    /// True when the word is exactly `text` whatever the environment: no expansion, no glob.
    pub literal: bool,
}

impl Word {
    /// A literal word.
    pub fn literal(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            literal: true,
        }
    }
}

/// One simple command the shell would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Its words, the program first.
    pub words: Vec<Word>,
    /// A wrapper (`env`, `timeout`, `xargs` …) whose command is listed after it: judged by that
    /// command, not by itself.
    pub wrapper: bool,
}

impl SimpleCommand {
    /// The program as written (`cargo`, `./x`, `/bin/ls`).
    pub fn program(&self) -> &str {
        self.words.first().map_or("", |w| w.text.as_str())
    }

    /// The same command with its program named by its file name (`/usr/bin/git` as `git`),
    /// when it is named by a path.
    pub fn by_file_name(&self) -> Option<SimpleCommand> {
        let first = self.words.first()?;
        let (_, name) = first.text.rsplit_once('/')?;
        let mut named = self.clone();
        if let Some(word) = named.words.first_mut() {
            word.text = name.to_owned();
        }
        Some(named)
    }

    /// The words as one line, for display.
    pub fn display(&self) -> String {
        let words: Vec<String> = self.words.iter().map(quote_for_display).collect();
        words.join(" ")
    }
}

/// A word shown so that it reads back as one word.
fn quote_for_display(word: &Word) -> String {
    let plain = !word.text.is_empty()
        && word
            .text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^{}".contains(c));
    if !word.literal || plain {
        word.text.clone()
    } else {
        format!("'{}'", word.text.replace('\'', "'\\''"))
    }
}

/// What a command would run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Split {
    /// The simple commands, in the order they appear.
    pub commands: Vec<SimpleCommand>,
    /// Why some of what it runs cannot be known (empty when everything is certain).
    pub uncertain: Vec<String>,
    /// The files its output redirections write (`> out.txt`), as written; `/dev/null` is not
    /// one. A command that writes a file is never allowed by a rule: the mode decides.
    pub writes: Vec<String>,
}

impl Split {
    /// The programs listed (wrappers included), as their file names (`/bin/ls` is `ls`).
    pub fn programs(&self) -> Vec<String> {
        self.commands
            .iter()
            .map(|c| {
                let p = c.program();
                p.rsplit('/').next().unwrap_or(p).to_owned()
            })
            .collect()
    }
}

/// How deep `sh -c` strings and substitutions may nest before the rest is uncertain.
const MAX_DEPTH: usize = 12;

/// Split `command` (bash syntax) into the simple commands it would run.
pub fn split(command: &str) -> Split {
    let mut out = Split::default();
    match plain_words(command) {
        Some(words) => wrappers::argv(words, 0, &mut out),
        None => walk::program(command, 0, &mut out),
    }
    out
}

/// Words the shell reads back exactly as written (no other character means anything in it).
const PLAIN: &[u8] = b" \t_./,+@:=-";

/// Reserved words: a command starting with or holding one goes through the parser.
const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "in", "function", "select", "time", "coproc", "{", "}", "!", "[[", "]]",
];

/// The words of a command made of plain words only (letters, digits, `_./,+@:=-`, spaces):
/// one simple command, every word literal, no parse needed. `None` for anything else, or
/// when it starts with an assignment or holds a reserved word.
fn plain_words(command: &str) -> Option<Vec<Word>> {
    if !command
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || PLAIN.contains(&b))
    {
        return None;
    }
    let words: Vec<&str> = command
        .split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .collect();
    let first = words.first()?;
    if first.contains('=') || words.iter().any(|w| RESERVED.contains(w)) {
        return None;
    }
    Some(words.into_iter().map(Word::literal).collect())
}

#[cfg(test)]
mod tests;
