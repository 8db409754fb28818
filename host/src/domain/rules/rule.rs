//! One rule and what it matches.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::glob::glob_match;
use crate::domain::EscalationKind;
use crate::domain::shell_split::{SimpleCommand, split};

/// What a rule decides about a call it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Run it without asking (under `ask` and `auto-edit`).
    Allow,
    /// Ask the person, in every mode.
    Ask,
    /// Refuse it, in every mode.
    Deny,
}

impl Decision {
    /// `allow`, `ask` or `deny`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// Where a rule comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleOrigin {
    /// `builtin`, `user`, `project` or `managed`.
    pub layer: String,
    /// The file (none for a built-in rule).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// The line of its `[[rules]]` header (0 for a built-in rule).
    pub line: usize,
}

impl RuleOrigin {
    /// `file:line`, or `built-in`.
    pub fn place(&self) -> String {
        match &self.file {
            Some(file) => format!("{}:{}", file.display(), self.line),
            None => "built-in".to_owned(),
        }
    }

    /// Where it comes from, for a person: `built-in`, `user /path/config.toml:12`, or (a rule
    /// saved while running, its line not yet known) `user /path/config.toml`.
    pub fn describe(&self) -> String {
        match &self.file {
            Some(file) if self.line == 0 => format!("{} {}", self.layer, file.display()),
            Some(_) => format!("{} {}", self.layer, self.place()),
            None => self.place(),
        }
    }
}

/// One rule, as configured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Its name, unique among the rules in force.
    pub id: String,
    /// What it decides.
    pub decision: Decision,
    /// Why, as the person and the model are told.
    pub why: String,
    /// For `shell`: the argv prefix, each position with its alternatives (empty for a rule on
    /// other tools).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<Vec<String>>,
    /// The command is the whole argv, not a prefix of it (an "always" answer for a program
    /// that runs what its arguments say saves the exact command).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    /// A built-in allow for programs that only read: the program must be the first word of
    /// `command`, and its whole argv read-only by construction (see
    /// [`super::readonly::read_only`]); the rest of `command` is shown, not matched.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// Words (a trailing `*` matches any ending) that keep a command rule from matching.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unless: Vec<String>,
    /// For other tools: tool-name globs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// For the writers: globs on the target path, relative to the workspace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Commands (or tool names, or paths) it must match.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// Commands (or tool names, or paths) it must not match.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_examples: Vec<String>,
    /// The workspace it is limited to (a rule saved by "always" in a chat), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// For a command rule: the escalation it decides (a `shell` call's `escalate` of this
    /// kind); such a rule judges escalated calls only, and only of this kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escalate: Option<EscalationKind>,
    /// Where it comes from.
    pub origin: RuleOrigin,
}

/// The tools a path rule applies to when it names none.
pub const WRITERS: &[&str] = &["write_file", "edit_file"];

impl Rule {
    /// A rule on `shell` commands.
    pub fn is_command(&self) -> bool {
        !self.command.is_empty()
    }

    /// Whether this command rule matches one simple command: its first words are literal and
    /// each is one of the alternatives at its position (all of its words, for an exact
    /// rule), no word is one of `unless`, and for a read-only rule the argv only reads.
    pub fn matches_command(&self, command: &SimpleCommand) -> bool {
        if self.read_only {
            return self.command.first().is_some_and(|programs| {
                command
                    .words
                    .first()
                    .is_some_and(|w| w.literal && programs.contains(&w.text))
            }) && super::readonly::read_only(&command.words);
        }
        if self.command.is_empty()
            || command.words.len() < self.command.len()
            || (self.exact && command.words.len() != self.command.len())
        {
            return false;
        }
        let prefix = self
            .command
            .iter()
            .zip(&command.words)
            .all(|(alternatives, word)| word.literal && alternatives.contains(&word.text));
        if !prefix {
            return false;
        }
        if self.unless.is_empty() {
            return true;
        }
        for word in &command.words {
            if !word.literal {
                return false;
            }
            for pattern in &self.unless {
                if unless_matches(pattern, &word.text) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether this command rule may match `command` once its words are expanded: every
    /// literal word before the first non-literal one matches, and a non-literal word comes
    /// before the prefix ends (`git $x` may be `git push`).
    pub fn may_match_command(&self, command: &SimpleCommand) -> bool {
        if self.command.is_empty() {
            return false;
        }
        for (alternatives, word) in self.command.iter().zip(&command.words) {
            if !word.literal {
                return true;
            }
            if !alternatives.contains(&word.text) {
                return false;
            }
        }
        false
    }

    /// Whether this rule matches a call of `tool` (with `path`, the normalised target of a
    /// writer).
    pub fn matches_tool(&self, tool: &str, path: Option<&str>) -> bool {
        if self.is_command() {
            return false;
        }
        let tool_matches = if self.tools.is_empty() {
            WRITERS.contains(&tool)
        } else {
            self.tools.iter().any(|g| glob_match(g, tool))
        };
        tool_matches
            && (self.paths.is_empty()
                || path.is_some_and(|p| self.paths.iter().any(|g| path_glob(g, p))))
    }

    /// Whether the rule matches an example: a command (some simple command of it), a path
    /// (for a path rule) or a tool name.
    pub fn matches_example(&self, example: &str) -> bool {
        if self.is_command() {
            split(example)
                .commands
                .iter()
                .any(|c| self.matches_command(c))
        } else if !self.paths.is_empty() {
            self.paths.iter().any(|g| path_glob(g, example))
        } else {
            self.tools.iter().any(|g| glob_match(g, example))
        }
    }

    /// The argv prefix as written: `cargo test|check`.
    pub fn command_text(&self) -> String {
        let words: Vec<String> = self.command.iter().map(|alts| alts.join("|")).collect();
        words.join(" ")
    }

    /// What the rule covers, for a listing: its command prefix (the whole command, for an
    /// exact rule; the programs, for a read-only one), or its tool and path globs.
    pub fn covers_text(&self) -> String {
        if self.exact {
            format!("{} (exactly)", self.command_text())
        } else if self.read_only {
            format!("{} (read-only options only)", self.command_text())
        } else if self.is_command() {
            self.command_text()
        } else {
            format!(
                "tool {} paths {}",
                self.tools.join("|"),
                self.paths.join("|")
            )
        }
    }
}

/// A path glob: one without `/` matches a name at any depth.
fn path_glob(glob: &str, path: &str) -> bool {
    glob_match(glob, path)
        || (!glob.contains('/') && glob_match(glob, path.rsplit('/').next().unwrap_or(path)))
}

fn unless_matches(pattern: &str, word: &str) -> bool {
    // As bytes: no character boundary to check.
    let (pattern, word) = (pattern.as_bytes(), word.as_bytes());
    match pattern.split_last() {
        Some((b'*', prefix)) => word.starts_with(prefix),
        _ => pattern == word,
    }
}
