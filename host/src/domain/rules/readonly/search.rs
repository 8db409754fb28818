//! Search programs: `grep` and its aliases, `rg`, and `find`'s expressions.

use super::argv::Argv;
use crate::domain::shell_split::{Word, exec_end};

/// `grep`, `egrep`, `fgrep` (GNU grep(1) writes no file and runs no program).
pub(super) const GREP: Argv = Argv {
    flags: "EFGPiywxzsvVbnHhoqaIrRlLcTUZ",
    valued: "efmABCdD",
    long: &[
        "extended-regexp",
        "fixed-strings",
        "basic-regexp",
        "perl-regexp",
        "regexp=",
        "file=",
        "ignore-case",
        "no-ignore-case",
        "word-regexp",
        "line-regexp",
        "null-data",
        "no-messages",
        "invert-match",
        "version",
        "help",
        "max-count=",
        "byte-offset",
        "line-number",
        "no-line-number",
        "line-buffered",
        "with-filename",
        "no-filename",
        "label=",
        "only-matching",
        "quiet",
        "silent",
        "binary-files=",
        "text",
        "directories=",
        "devices=",
        "recursive",
        "dereference-recursive",
        "include=",
        "exclude=",
        "exclude-from=",
        "exclude-dir=",
        "files-without-match",
        "files-with-matches",
        "count",
        "initial-tab",
        "null",
        "before-context=",
        "after-context=",
        "context=",
        "group-separator=",
        "no-group-separator",
        "color=?",
        "colour=?",
        "binary",
    ],
    digits: true,
    expands: true,
    ..Argv::NONE
};

/// `rg`: rg(1) runs a program on every file with `--pre`, runs decompressors with
/// `-z`/`--search-zip` and runs `--hostname-bin`; none is listed. rg takes no
/// abbreviations.
pub(super) const RG: Argv = Argv {
    flags: "abcFHiIlLnNopPqsSuUvVwx0",
    valued: "ABCdeEfgjmMrtT",
    long: &[
        "files",
        "files-with-matches",
        "files-without-match",
        "count",
        "count-matches",
        "type=",
        "type-not=",
        "type-list",
        "glob=",
        "iglob=",
        "hidden",
        "no-hidden",
        "no-ignore",
        "no-ignore-vcs",
        "no-ignore-dot",
        "no-ignore-parent",
        "no-ignore-global",
        "ignore-case",
        "smart-case",
        "case-sensitive",
        "fixed-strings",
        "word-regexp",
        "line-regexp",
        "invert-match",
        "line-number",
        "no-line-number",
        "column",
        "no-column",
        "heading",
        "no-heading",
        "with-filename",
        "no-filename",
        "color=",
        "colors=",
        "context=",
        "after-context=",
        "before-context=",
        "max-count=",
        "max-depth=",
        "max-filesize=",
        "max-columns=",
        "follow",
        "multiline",
        "multiline-dotall",
        "pcre2",
        "json",
        "vimgrep",
        "only-matching",
        "replace=",
        "regexp=",
        "file=",
        "sort=",
        "sortr=",
        "stats",
        "text",
        "unrestricted",
        "trim",
        "null",
        "null-data",
        "quiet",
        "passthru",
        "encoding=",
        "threads=",
        "one-file-system",
        "debug",
        "engine=",
        "no-messages",
        "ignore-file=",
        "byte-offset",
        "crlf",
        "context-separator=",
        "field-match-separator=",
        "path-separator=",
        "help",
        "version",
        "!pre",
        "!pre-glob",
        "!search-zip",
        "!hostname-bin",
    ],
    prefixes: false,
    ..Argv::NONE
};

/// `find`'s tests and options taking no argument.
const FIND_NULLARY: &[&str] = &[
    "-depth",
    "-follow",
    "-xdev",
    "-mount",
    "-noleaf",
    "-warn",
    "-nowarn",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-daystart",
    "-empty",
    "-readable",
    "-writable",
    "-executable",
    "-nouser",
    "-nogroup",
    "-true",
    "-false",
    "-print",
    "-print0",
    "-ls",
    "-prune",
    "-quit",
    "-not",
    "-a",
    "-and",
    "-o",
    "-or",
    "!",
    ",",
    "(",
    ")",
    "-help",
    "--help",
    "-version",
    "--version",
];

/// `find`'s tests and options taking one argument.
const FIND_UNARY: &[&str] = &[
    "-maxdepth",
    "-mindepth",
    "-regextype",
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-type",
    "-xtype",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-newer",
    "-anewer",
    "-cnewer",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-links",
    "-inum",
    "-samefile",
    "-lname",
    "-ilname",
    "-fstype",
    "-used",
    "-printf",
    "-context",
];

/// `find`: find(1) deletes with `-delete` and writes with `-fprint`, `-fprint0`,
/// `-fprintf` and `-fls`; none is listed. `-exec`, `-execdir`, `-ok` and `-okdir` run a
/// command that the split lists and judges on its own: here it is skipped up to its `;`,
/// or up to a `+` right after `{}` (find ends `-exec … {} +` there and nowhere else).
pub(super) fn find(args: &[Word]) -> bool {
    let mut at = 0;
    // `-H`, `-L`, `-P`, `-O3`, `-D opts` come before the starting points.
    while let Some(arg) = args.get(at) {
        match arg.text.as_str() {
            "-H" | "-L" | "-P" if arg.literal => at += 1,
            "-D" if arg.literal => at += 2,
            t if arg.literal && t.starts_with("-O") => at += 1,
            _ => break,
        }
    }
    while let Some(arg) = args.get(at) {
        at += 1;
        if !arg.literal {
            // A starting point or a test's argument may be a glob of a safe start; anything
            // else may expand to an action.
            if super::argv::glob_operand(arg) {
                continue;
            }
            return false;
        }
        let text = arg.text.as_str();
        if FIND_NULLARY.contains(&text) {
            continue;
        }
        if FIND_UNARY.contains(&text) || text.starts_with("-newer") {
            if !args.get(at).is_some_and(super::argv::glob_operand) {
                return false;
            }
            at += 1;
            continue;
        }
        if matches!(text, "-exec" | "-execdir" | "-ok" | "-okdir") {
            match exec_end(args, at) {
                Some(end) => at = end + 1,
                None => return false,
            }
            continue;
        }
        if text.starts_with('-') {
            return false;
        }
        // A starting point (before the expression) or a stray word find refuses.
    }
    true
}
