//! The global options of the programs the defaults know (`git`, `cargo`, `npm`, `pnpm`,
//! `yarn`, `go`), skipped so that a `deny` or `ask` rule on `git push` also holds for `git -C
//! . push`, `git --no-pager push`, `git -c x=y push`. An option that is not known here is
//! reported: next to a program a deny rule names, it is refused, since what it does to the
//! words after it cannot be told.

use crate::domain::shell_split::{SimpleCommand, Word};

/// A command with its program's global options taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Globals {
    /// The program has no global options here, or none was given.
    Same,
    /// The command as the subcommand sees it: program, subcommand, its arguments.
    Stripped(SimpleCommand),
    /// A global option that is not understood, as written.
    Unknown(String),
}

/// One program's global options: those with no value, those whose value is the next word
/// (or joined with `=`), and whether `+toolchain` may come first (`cargo +nightly`).
struct Table {
    flags: &'static [&'static str],
    valued: &'static [&'static str],
    plus_first: bool,
}

const GIT: Table = Table {
    flags: &[
        "--no-pager",
        "-P",
        "-p",
        "--paginate",
        "--bare",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-replace-objects",
        "--no-lazy-fetch",
        "--no-advice",
        "--exec-path",
        "--html-path",
        "--man-path",
        "--info-path",
        "--version",
        "-v",
        "--help",
        "-h",
    ],
    valued: &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--attr-source",
        "--list-cmds",
        "--exec-path",
    ],
    plus_first: false,
};

const CARGO: Table = Table {
    flags: &[
        "-v",
        "-vv",
        "-vvv",
        "--verbose",
        "-q",
        "--quiet",
        "--frozen",
        "--locked",
        "--offline",
        "-V",
        "--version",
        "--list",
        "-h",
        "--help",
    ],
    valued: &[
        "--color",
        "--config",
        "-Z",
        "-C",
        "--manifest-path",
        "--explain",
    ],
    plus_first: true,
};

const NPM: Table = Table {
    flags: &[
        "-g",
        "--global",
        "-ws",
        "--workspaces",
        "--include-workspace-root",
        "-s",
        "--silent",
        "-q",
        "--quiet",
        "-d",
        "--loglevel",
        "--dry-run",
        "-f",
        "--force",
        "--json",
        "-y",
        "--yes",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "-v",
        "--version",
        "-h",
        "--help",
        "-r",
        "--recursive",
    ],
    valued: &[
        "--prefix",
        "-C",
        "-w",
        "--workspace",
        "--registry",
        "--userconfig",
        "--globalconfig",
        "--cache",
        "--cwd",
        "--dir",
        "--filter",
        "-F",
        "--otp",
        "--tag",
        "--access",
        "--script-shell",
        "--node-options",
    ],
    plus_first: false,
};

const GO: Table = Table {
    flags: &["-h", "--help"],
    valued: &["-C"],
    plus_first: false,
};

fn table(program: &str) -> Option<&'static Table> {
    match program {
        "git" => Some(&GIT),
        "cargo" => Some(&CARGO),
        "npm" | "pnpm" | "yarn" => Some(&NPM),
        "go" => Some(&GO),
        _ => None,
    }
}

/// `command` with its program named by its file name and its global options taken out.
pub(crate) fn strip(command: &SimpleCommand) -> Globals {
    let Some((first, args)) = command.words.split_first() else {
        return Globals::Same;
    };
    let name = first.text.rsplit('/').next().unwrap_or(&first.text);
    let Some(table) = table(name) else {
        return Globals::Same;
    };
    let mut at = 0;
    if table.plus_first && args.first().is_some_and(|a| a.text.starts_with('+')) {
        at = 1;
    }
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        if !arg.literal || !text.starts_with('-') {
            break;
        }
        if text == "--" {
            at += 1;
            break;
        }
        if table.flags.contains(&text) {
            at += 1;
        } else if table.valued.contains(&text) {
            at += 2;
        } else if table.valued.iter().any(|v| {
            text.strip_prefix(v)
                .is_some_and(|rest| rest.starts_with('=') || (v.len() == 2 && !rest.is_empty()))
        }) {
            at += 1;
        } else {
            return Globals::Unknown(text.to_owned());
        }
    }
    if at == 0 && first.text == name {
        return Globals::Same;
    }
    let mut words = vec![Word {
        text: name.to_owned(),
        literal: first.literal,
    }];
    words.extend(args.get(at..).unwrap_or_default().iter().cloned());
    Globals::Stripped(SimpleCommand {
        words,
        wrapper: command.wrapper,
    })
}
