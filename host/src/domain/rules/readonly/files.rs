//! Programs that list or print files (coreutils, util-linux, `file`, `tree`, `less`): their
//! read-only options. None of the options listed writes a file or runs a program; those that
//! do are marked `!` (see [`super::argv::Argv::long`]) or left out, which makes them ask.

use super::argv::Argv;

/// `ls`: lists only (coreutils ls(1) has no option that writes or runs anything).
pub(super) const LS: Argv = Argv {
    flags: "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
    valued: "ITw",
    long: &[
        "all",
        "almost-all",
        "author",
        "escape",
        "block-size=",
        "ignore-backups",
        "color=?",
        "directory",
        "dired",
        "classify=?",
        "file-type",
        "format=",
        "full-time",
        "group-directories-first",
        "no-group",
        "human-readable",
        "si",
        "dereference-command-line",
        "dereference-command-line-symlink-to-dir",
        "hide=",
        "hyperlink=?",
        "indicator-style=",
        "inode",
        "ignore=",
        "kibibytes",
        "dereference",
        "literal",
        "numeric-uid-gid",
        "hide-control-chars",
        "show-control-chars",
        "quote-name",
        "quoting-style=",
        "reverse",
        "recursive",
        "size",
        "sort=",
        "time=",
        "time-style=",
        "tabsize=",
        "width=",
        "context",
        "zero",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `cat`.
pub(super) const CAT: Argv = Argv {
    flags: "AbeEnstTuv",
    long: &[
        "show-all",
        "number-nonblank",
        "show-ends",
        "number",
        "squeeze-blank",
        "show-tabs",
        "show-nonprinting",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `head`.
pub(super) const HEAD: Argv = Argv {
    flags: "qvz",
    valued: "cn",
    long: &[
        "bytes=",
        "lines=",
        "quiet",
        "silent",
        "verbose",
        "zero-terminated",
        "help",
        "version",
    ],
    digits: true,
    expands: true,
    ..Argv::NONE
};

/// `tail` (`-f` waits, and reads only).
pub(super) const TAIL: Argv = Argv {
    flags: "fFqvz",
    valued: "cns",
    long: &[
        "bytes=",
        "follow=?",
        "lines=",
        "max-unchanged-stats=",
        "pid=",
        "quiet",
        "retry",
        "silent",
        "sleep-interval=",
        "verbose",
        "zero-terminated",
        "help",
        "version",
    ],
    digits: true,
    expands: true,
    ..Argv::NONE
};

/// `wc`.
pub(super) const WC: Argv = Argv {
    flags: "clmwL",
    long: &[
        "bytes",
        "chars",
        "lines",
        "files0-from=",
        "max-line-length",
        "words",
        "total=",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `stat`.
pub(super) const STAT: Argv = Argv {
    flags: "LftZ",
    valued: "c",
    long: &[
        "dereference",
        "file-system",
        "cached=",
        "format=",
        "printf=",
        "terse",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `du`.
pub(super) const DU: Argv = Argv {
    flags: "0abcDHhklLmPSsx",
    valued: "BdtX",
    long: &[
        "null",
        "all",
        "apparent-size",
        "block-size=",
        "bytes",
        "total",
        "dereference-args",
        "max-depth=",
        "files0-from=",
        "human-readable",
        "inodes",
        "dereference",
        "count-links",
        "no-dereference",
        "separate-dirs",
        "si",
        "summarize",
        "threshold=",
        "time=?",
        "time-style=",
        "exclude-from=",
        "exclude=",
        "one-file-system",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `df` (its `--output` names columns, not a file).
pub(super) const DF: Argv = Argv {
    flags: "ahHiklPTv",
    valued: "Btx",
    long: &[
        "all",
        "block-size=",
        "human-readable",
        "si",
        "inodes",
        "local",
        "no-sync",
        "output=?",
        "portability",
        "sync",
        "total",
        "type=",
        "print-type",
        "exclude-type=",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `tree`: tree(1) writes with `-o FILE` and, with `-R`, runs itself again with `-o
/// 00Tree.html` in every directory; neither is listed. tree reads a valued option's value
/// from the next word and goes on reading the cluster, and takes no abbreviations.
pub(super) const TREE: Argv = Argv {
    flags: "aAdfgilnpqsCDFhJNQrStuUvxX",
    valued: "HILPT",
    long: &[
        "help",
        "version",
        "inodes",
        "device",
        "noreport",
        "nolinks",
        "dirsfirst",
        "filesfirst",
        "charset=",
        "filelimit=",
        "timefmt=",
        "du",
        "prune",
        "matchdirs",
        "sort=",
        "gitignore",
        "info",
        "metafirst",
        "fromfile",
        "!output",
    ],
    prefixes: false,
    attached: false,
    ..Argv::NONE
};

/// `realpath`.
pub(super) const REALPATH: Argv = Argv {
    flags: "eLmPqsz",
    long: &[
        "canonicalize-existing",
        "canonicalize-missing",
        "logical",
        "physical",
        "quiet",
        "relative-to=",
        "relative-base=",
        "strip",
        "no-symlinks",
        "zero",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `dirname`.
pub(super) const DIRNAME: Argv = Argv {
    flags: "z",
    long: &["zero", "help", "version"],
    expands: true,
    ..Argv::NONE
};

/// `basename`.
pub(super) const BASENAME: Argv = Argv {
    flags: "az",
    valued: "s",
    long: &["multiple", "suffix=", "zero", "help", "version"],
    expands: true,
    ..Argv::NONE
};

/// `nl`.
pub(super) const NL: Argv = Argv {
    flags: "p",
    valued: "bdfhilnsvw",
    long: &[
        "body-numbering=",
        "section-delimiter=",
        "footer-numbering=",
        "header-numbering=",
        "line-increment=",
        "join-blank-lines=",
        "number-format=",
        "no-renumber",
        "number-separator=",
        "starting-line-number=",
        "number-width=",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `less`: less(1) writes a log with `-o`/`-O` (`--log-file`, `--LOG-FILE`), reads commands
/// from `-k`/`--lesskey-file`/`--lesskey-src` and from `+cmd` operands (`+!sh` runs a
/// shell), opens an editor with `v` and runs `LESSOPEN`; only display options are listed,
/// and only by their exact long name. An operand starting with `+` is refused by the caller.
pub(super) const LESS: Argv = Argv {
    flags: "aBcCdeEfFgGiIJKLmMnNqQrRsSuUwWX~",
    valued: "bhjpxyz",
    long: &[
        "quit-if-one-screen",
        "no-init",
        "RAW-CONTROL-CHARS",
        "raw-control-chars",
        "LINE-NUMBERS",
        "line-numbers",
        "chop-long-lines",
        "ignore-case",
        "IGNORE-CASE",
        "quit-at-eof",
        "QUIT-AT-EOF",
        "squeeze-blank-lines",
        "no-lessopen",
        "pattern=",
        "tabs=",
        "help",
        "version",
        "!log-file",
        "!LOG-FILE",
        "!lesskey-file",
        "!lesskey-src",
        "!tag",
        "!tag-file",
    ],
    prefixes: false,
    attached: true,
    ..Argv::NONE
};

/// `more` (util-linux): its `!cmd` and `v` need a terminal's keys.
pub(super) const MORE: Argv = Argv {
    flags: "cdeflpsu",
    valued: "n",
    long: &[
        "silent",
        "logical",
        "no-pause",
        "print-over",
        "clean-print",
        "squeeze",
        "plain",
        "lines=",
        "help",
        "version",
    ],
    digits: true,
    ..Argv::NONE
};

/// `file`: file(1) writes a compiled magic file with `-C`/`--compile`, runs decompressors
/// with `-z`/`-Z` (`--uncompress`) and sets access times back with `-p`
/// (`--preserve-date`); none is listed.
pub(super) const FILE: Argv = Argv {
    flags: "bcdEhiIkLlNnrsSv0",
    valued: "eFfmP",
    long: &[
        "brief",
        "exclude=",
        "exclude-quiet=",
        "extension",
        "files-from=",
        "separator=",
        "mime",
        "mime-type",
        "mime-encoding",
        "keep-going",
        "list",
        "dereference",
        "no-dereference",
        "no-pad",
        "no-buffer",
        "print0",
        "raw",
        "special-files",
        "no-sandbox",
        "magic-file=",
        "parameter=",
        "help",
        "version",
        "!compile",
        "!uncompress",
        "!uncompress-noreport",
        "!preserve-date",
    ],
    ..Argv::NONE
};
