//! `git`'s read subcommands: the global options that are safe before them, and each one's
//! read options. Only exact long names are accepted (the revision and diff options of `git
//! log` and `git diff` take no abbreviations). What the repository's own configuration makes
//! git run (`core.fsmonitor`, textconv, external diff, pager) is turned off by the hardening
//! git runs with in the sandbox, not here.

use super::argv::{self, Argv};
use crate::domain::shell_split::Word;

/// The read subcommands the built-in rule allows.
pub(crate) const READS: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "rev-parse",
    "ls-files",
    "describe",
    "shortlog",
];

/// Global options that change nothing git reads or runs. Not listed, so never read-only:
/// `-C`, `-c`, `--git-dir`, `--work-tree`, `--namespace`, `--exec-path`, `--config-env`,
/// `--bare` (the directory is taken as a repository: one shipped as files), `-p`/`--paginate`
/// (runs the pager), `--super-prefix`, `--attr-source`.
pub(crate) const SAFE_GLOBALS: &[&str] = &[
    "--no-pager",
    "-P",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-replace-objects",
    "--no-advice",
];

/// The diff options shared by `diff`, `log`, `show`. git-diff(1) writes a file with
/// `--output`, and runs programs with `--ext-diff` and `--textconv`; not listed.
const DIFF_LONG: &[&str] = &[
    "patch",
    "no-patch",
    "unified=",
    "raw",
    "patch-with-raw",
    "patch-with-stat",
    "stat=?",
    "stat-width=",
    "stat-name-width=",
    "stat-graph-width=",
    "stat-count=",
    "compact-summary",
    "numstat",
    "shortstat",
    "dirstat=?",
    "cumulative",
    "dirstat-by-file=?",
    "summary",
    "name-only",
    "name-status",
    "submodule=?",
    "color=?",
    "no-color",
    "color-moved=?",
    "no-color-moved",
    "color-moved-ws=",
    "no-color-moved-ws",
    "word-diff=?",
    "word-diff-regex=",
    "color-words=?",
    "no-renames",
    "rename-empty",
    "no-rename-empty",
    "check",
    "ws-error-highlight=",
    "full-index",
    "binary",
    "abbrev=?",
    "break-rewrites=?",
    "find-renames=?",
    "find-copies=?",
    "find-copies-harder",
    "irreversible-delete",
    "diff-filter=",
    "find-object=",
    "pickaxe-all",
    "pickaxe-regex",
    "skip-to=",
    "rotate-to=",
    "relative=?",
    "no-relative",
    "text",
    "ignore-cr-at-eol",
    "ignore-space-at-eol",
    "ignore-space-change",
    "ignore-all-space",
    "ignore-blank-lines",
    "ignore-matching-lines=",
    "inter-hunk-context=",
    "function-context",
    "exit-code",
    "quiet",
    "no-ext-diff",
    "no-textconv",
    "ignore-submodules=?",
    "src-prefix=",
    "dst-prefix=",
    "no-prefix",
    "default-prefix",
    "line-prefix=",
    "ita-invisible-in-index",
    "ita-visible-in-index",
    "minimal",
    "patience",
    "histogram",
    "anchored=",
    "diff-algorithm=",
    "indent-heuristic",
    "no-indent-heuristic",
    "cached",
    "staged",
    "merge-base",
    "no-index",
    "base",
    "ours",
    "theirs",
    "!output",
    "!ext-diff",
    "!textconv",
    "!output-indicator-new",
    "!output-indicator-old",
    "!output-indicator-context",
];

/// The revision options of `log`, `show`, `shortlog`. `--show-signature` runs gpg and
/// `--stdin` reads more arguments from standard input; not listed.
const LOG_LONG: &[&str] = &[
    "oneline",
    "max-count=",
    "skip=",
    "since=",
    "after=",
    "until=",
    "before=",
    "since-as-filter=",
    "author=",
    "committer=",
    "grep=",
    "grep-reflog=",
    "all-match",
    "invert-grep",
    "regexp-ignore-case",
    "basic-regexp",
    "extended-regexp",
    "fixed-strings",
    "perl-regexp",
    "remove-empty",
    "merges",
    "no-merges",
    "min-parents=",
    "max-parents=",
    "no-min-parents",
    "no-max-parents",
    "first-parent",
    "exclude-first-parent-only",
    "not",
    "all",
    "branches=?",
    "tags=?",
    "remotes=?",
    "glob=",
    "exclude=",
    "reflog",
    "alternate-refs",
    "single-worktree",
    "ignore-missing",
    "bisect",
    "cherry-mark",
    "cherry-pick",
    "left-only",
    "right-only",
    "cherry",
    "walk-reflogs",
    "merge",
    "boundary",
    "simplify-by-decoration",
    "show-pulls",
    "full-history",
    "dense",
    "sparse",
    "simplify-merges",
    "ancestry-path=?",
    "date-order",
    "author-date-order",
    "topo-order",
    "reverse",
    "no-walk=?",
    "do-walk",
    "pretty=?",
    "format=",
    "abbrev-commit",
    "no-abbrev-commit",
    "no-abbrev",
    "encoding=",
    "expand-tabs=?",
    "no-expand-tabs",
    "notes=?",
    "no-notes",
    "relative-date",
    "date=",
    "parents",
    "children",
    "left-right",
    "graph",
    "show-linear-break=?",
    "follow",
    "no-decorate",
    "decorate=?",
    "decorate-refs=",
    "decorate-refs-exclude=",
    "clear-decorations",
    "source",
    "mailmap",
    "no-mailmap",
    "use-mailmap",
    "no-use-mailmap",
    "full-diff",
    "log-size",
    "cc",
    "dd",
    "diff-merges=",
    "no-diff-merges",
    "combined-all-paths",
    "!show-signature",
    "!stdin",
];

const GIT: Argv = Argv {
    prefixes: false,
    ..Argv::NONE
};

const DIFF: Argv = Argv {
    flags: "pusRaWwbzD",
    optional: "MCB",
    valued: "USGOlI",
    long: DIFF_LONG,
    ..GIT
};

const LOG: Argv = Argv {
    flags: "pusRaWwbzDgiEFPmctr",
    optional: "MCB",
    valued: "USGOlInL",
    long: LOG_LONG,
    also: DIFF_LONG,
    digits: true,
    ..GIT
};

const SHORTLOG: Argv = Argv {
    flags: "nsec",
    optional: "w",
    long: &[
        "numbered",
        "summary",
        "email",
        "committer",
        "group=",
        "format=",
    ],
    also: LOG_LONG,
    ..GIT
};

const STATUS: Argv = Argv {
    flags: "sbvz",
    optional: "u",
    long: &[
        "short",
        "branch",
        "show-stash",
        "porcelain=?",
        "long",
        "verbose",
        "untracked-files=?",
        "ignore-submodules=?",
        "ignored=?",
        "null",
        "column=?",
        "no-column",
        "ahead-behind",
        "no-ahead-behind",
        "renames",
        "no-renames",
        "find-renames=?",
    ],
    ..GIT
};

const BLAME: Argv = Argv {
    flags: "bltsefnpwc",
    optional: "MC",
    valued: "LS",
    long: &[
        "root",
        "show-stats",
        "show-name",
        "show-number",
        "show-email",
        "porcelain",
        "line-porcelain",
        "incremental",
        "encoding=",
        "contents=",
        "date=",
        "progress",
        "no-progress",
        "reverse=?",
        "first-parent",
        "score-debug",
        "abbrev=?",
        "ignore-rev=",
        "ignore-revs-file=",
        "color-lines",
        "color-by-age",
        "minimal",
    ],
    ..GIT
};

const REV_PARSE: Argv = Argv {
    flags: "q",
    long: &[
        "keep-dashdash",
        "stop-at-non-option",
        "stuck-long",
        "revs-only",
        "no-revs",
        "flags",
        "no-flags",
        "default=",
        "prefix=",
        "verify",
        "quiet",
        "sq",
        "short=?",
        "not",
        "abbrev-ref=?",
        "symbolic",
        "symbolic-full-name",
        "all",
        "branches=?",
        "tags=?",
        "remotes=?",
        "glob=",
        "exclude=",
        "exclude-hidden=",
        "disambiguate=",
        "local-env-vars",
        "path-format=",
        "git-dir",
        "git-common-dir",
        "resolve-git-dir=",
        "git-path=",
        "show-toplevel",
        "show-superproject-working-tree",
        "shared-index-path",
        "absolute-git-dir",
        "is-inside-git-dir",
        "is-inside-work-tree",
        "is-bare-repository",
        "is-shallow-repository",
        "show-cdup",
        "show-prefix",
        "show-object-format=?",
        "show-ref-format",
        "since=",
        "after=",
        "until=",
        "before=",
    ],
    ..GIT
};

const LS_FILES: Argv = Argv {
    flags: "cdmoiksutvfz",
    valued: "xX",
    long: &[
        "cached",
        "deleted",
        "modified",
        "others",
        "ignored",
        "stage",
        "unmerged",
        "killed",
        "directory",
        "no-empty-directory",
        "eol",
        "deduplicate",
        "exclude=",
        "exclude-from=",
        "exclude-per-directory=",
        "exclude-standard",
        "error-unmatch",
        "with-tree=",
        "full-name",
        "recurse-submodules",
        "abbrev=?",
        "debug",
        "format=",
        "sparse",
        "resolve-undo",
    ],
    ..GIT
};

const DESCRIBE: Argv = Argv {
    long: &[
        "all",
        "tags",
        "contains",
        "abbrev=",
        "candidates=",
        "exact-match",
        "debug",
        "long",
        "match=",
        "exclude=",
        "always",
        "first-parent",
        "dirty=?",
        "broken=?",
    ],
    ..GIT
};

/// The index of the subcommand in `args` (git's own argv, the program not included) once
/// the safe global options are skipped; `None` when a global option is not a safe one.
pub(crate) fn subcommand_at(args: &[Word]) -> Option<usize> {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        if !arg.literal {
            return None;
        }
        if !arg.text.starts_with('-') {
            return Some(at);
        }
        if !SAFE_GLOBALS.contains(&arg.text.as_str()) {
            return None;
        }
        at += 1;
    }
    None
}

/// `git [SAFE GLOBALS] READ [READ OPTIONS] [OPERANDS]`.
pub(super) fn git(args: &[Word]) -> bool {
    let Some(at) = subcommand_at(args) else {
        return false;
    };
    let spec = match args[at].text.as_str() {
        "status" => &STATUS,
        "diff" => &DIFF,
        "log" | "show" => &LOG,
        "shortlog" => &SHORTLOG,
        "blame" => &BLAME,
        "rev-parse" => &REV_PARSE,
        "ls-files" => &LS_FILES,
        "describe" => &DESCRIBE,
        _ => return false,
    };
    argv::operands(spec, args.get(at + 1..).unwrap_or_default()).is_some()
}
