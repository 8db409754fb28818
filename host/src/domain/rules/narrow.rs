//! The rule an "always" answer saves: the narrowest argv prefix that covers the command, or,
//! for a program that runs what its arguments say, the exact command.

use crate::domain::shell_split::split;

/// Programs whose arguments are code or pick a program to run (`awk 'BEGIN{system(…)}'`,
/// `sed '1e …'`, `find -exec`, `make` targets, `env X cmd`): "always" saves the exact command,
/// never the bare program or its first word.
const RUNS_ARGUMENTS: &[&str] = &[
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "busybox",
    "sed",
    "gsed",
    "perl",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "irb",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "Rscript",
    "julia",
    "osascript",
    "sh",
    "bash",
    "dash",
    "ash",
    "zsh",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "find",
    "xargs",
    "env",
    "make",
    "gmake",
    "sudo",
    "doas",
    "exec",
    "eval",
    "nohup",
    "timeout",
    "nice",
    "command",
    "builtin",
    "time",
    "stdbuf",
    "npx",
    "pnpx",
    "bunx",
    "uv",
    "uvx",
    "pipx",
    "tar",
    "rsync",
    "ssh",
    "scp",
    "vim",
    "vi",
    "nvim",
    "ex",
    "ed",
    "emacs",
    "less",
    "more",
    "man",
    "parallel",
    "watch",
    "sort",
    "rg",
    "jq",
    "gdb",
    "strace",
    "ltrace",
    "script",
    "expect",
    "m4",
    "dc",
    "bc",
];

/// Programs whose first argument is a subcommand (`cargo test`, `git diff`): saved with it,
/// unless an option comes first (`git -c core.pager=sh log`: saved exactly).
const WITH_SUBCOMMAND: &[&str] = &[
    "git", "cargo", "npm", "pnpm", "yarn", "go", "docker", "kubectl", "pip", "pip3", "rustup",
    "gh", "just", "poetry", "bundle", "rake", "mvn", "gradle", "dotnet", "swift",
];

/// One rule "always" saves for one simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The words: an argv prefix, or the whole argv when [`Saved::exact`].
    pub words: Vec<String>,
    /// The rule matches this argv and nothing longer.
    pub exact: bool,
}

impl Saved {
    /// How the person is shown it: `cargo test …` for a prefix, the quoted command and
    /// "(exactly)" for an exact one.
    pub fn shown(&self) -> String {
        let words: Vec<String> = self.words.iter().map(|w| quoted(w)).collect();
        if self.exact {
            format!("{} (exactly)", words.join(" "))
        } else {
            format!("{} …", words.join(" "))
        }
    }
}

/// `word` as the shell reads it back as one word.
pub fn quoted(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The rules (one per simple command) that an "always" for `command` saves, or `None` when it
/// cannot be covered: something in it is uncertain, or a word it would need is not literal.
/// A program that runs what its arguments say ([`RUNS_ARGUMENTS`]) is saved with all its
/// words, and so is a program with a subcommand given an option before it (`cargo +x test`).
pub fn narrowest(command: &str) -> Option<Vec<Saved>> {
    let split = split(command);
    if !split.uncertain.is_empty() || split.commands.is_empty() {
        return None;
    }
    let mut out: Vec<Saved> = Vec::new();
    for simple in split.commands.iter().filter(|c| !c.wrapper) {
        let first = simple.words.first()?;
        if !first.literal {
            return None;
        }
        let program = first.text.rsplit('/').next().unwrap_or(&first.text);
        let second = simple.words.get(1);
        let saved = if RUNS_ARGUMENTS.contains(&program)
            || (WITH_SUBCOMMAND.contains(&program)
                && second.is_some_and(|w| !w.literal || w.text.starts_with(['-', '+'])))
        {
            if simple.words.iter().any(|w| !w.literal) {
                return None;
            }
            Saved {
                words: simple.words.iter().map(|w| w.text.clone()).collect(),
                exact: true,
            }
        } else if WITH_SUBCOMMAND.contains(&program) {
            let second = second?;
            Saved {
                words: vec![first.text.clone(), second.text.clone()],
                exact: false,
            }
        } else {
            Saved {
                words: vec![first.text.clone()],
                exact: false,
            }
        };
        if !out.contains(&saved) {
            out.push(saved);
        }
    }
    Some(out)
}

/// The argv prefixes of [`narrowest`], for callers that show them only; an exact rule's
/// prefix is its whole command.
pub fn narrowest_prefix(command: &str) -> Option<Vec<Vec<String>>> {
    narrowest(command).map(|all| all.into_iter().map(|s| s.words).collect())
}
