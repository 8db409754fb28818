//! Programs that transform or compare text on their standard output: their read-only options
//! and how many of their operands they read.

use super::argv::Argv;

/// `sort`: sort(1) writes with `-o`/`--output`, writes temporary files where `-T`
/// (`--temporary-directory`) says and runs `--compress-program` on them; none is
/// listed.
pub(super) const SORT: Argv = Argv {
    flags: "bcCdfghiMmnRrsuVz",
    valued: "kSt",
    long: &[
        "ignore-leading-blanks",
        "dictionary-order",
        "ignore-case",
        "general-numeric-sort",
        "ignore-nonprinting",
        "month-sort",
        "human-numeric-sort",
        "numeric-sort",
        "random-sort",
        "random-source=",
        "reverse",
        "sort=",
        "version-sort",
        "batch-size=",
        "check=?",
        "debug",
        "files0-from=",
        "key=",
        "merge",
        "stable",
        "buffer-size=",
        "field-separator=",
        "unique",
        "zero-terminated",
        "parallel=",
        "help",
        "version",
        "!output",
        "!temporary-directory",
        "!compress-program",
    ],
    ..Argv::NONE
};

/// `uniq`: `uniq [OPTION]... [INPUT [OUTPUT]]` writes OUTPUT, so one operand at most.
pub(super) const UNIQ: Argv = Argv {
    flags: "cdDiuz",
    valued: "fsw",
    long: &[
        "count",
        "repeated",
        "all-repeated=?",
        "skip-fields=",
        "ignore-case",
        "skip-chars=",
        "unique",
        "zero-terminated",
        "check-chars=",
        "group=?",
        "help",
        "version",
    ],
    operands: Some(1),
    ..Argv::NONE
};

/// `cut`.
pub(super) const CUT: Argv = Argv {
    flags: "nsz",
    valued: "bcdf",
    long: &[
        "bytes=",
        "characters=",
        "delimiter=",
        "fields=",
        "complement",
        "only-delimited",
        "output-delimiter=",
        "zero-terminated",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `tr`: two sets, no file.
pub(super) const TR: Argv = Argv {
    flags: "cCdst",
    long: &[
        "complement",
        "delete",
        "squeeze-repeats",
        "truncate-set1",
        "help",
        "version",
    ],
    operands: Some(2),
    expands: true,
    ..Argv::NONE
};

/// `cmp FILE1 [FILE2 [SKIP1 [SKIP2]]]`.
pub(super) const CMP: Argv = Argv {
    flags: "blsv",
    valued: "in",
    long: &[
        "print-bytes",
        "ignore-initial=",
        "verbose",
        "bytes=",
        "quiet",
        "silent",
        "help",
        "version",
    ],
    operands: Some(4),
    expands: true,
    ..Argv::NONE
};

/// `diff`: diff(1) runs `pr` with `-l`/`--paginate`; it writes no file (`--from-file` and
/// `--to-file` only name what is compared).
pub(super) const DIFF: Argv = Argv {
    flags: "aBbcdEefHiNnpqrsTtuwyZ",
    valued: "CDFISUWXx",
    long: &[
        "normal",
        "brief",
        "report-identical-files",
        "context=?",
        "unified=?",
        "ed",
        "rcs",
        "side-by-side",
        "width=",
        "left-column",
        "suppress-common-lines",
        "show-c-function",
        "show-function-line=",
        "label=",
        "expand-tabs",
        "initial-tab",
        "tabsize=",
        "suppress-blank-empty",
        "new-file",
        "unidirectional-new-file",
        "ignore-case",
        "ignore-tab-expansion",
        "ignore-trailing-space",
        "ignore-space-change",
        "ignore-all-space",
        "ignore-blank-lines",
        "ignore-matching-lines=",
        "text",
        "strip-trailing-cr",
        "ifdef=",
        "old-group-format=",
        "new-group-format=",
        "unchanged-group-format=",
        "changed-group-format=",
        "line-format=",
        "old-line-format=",
        "new-line-format=",
        "unchanged-line-format=",
        "recursive",
        "exclude=",
        "exclude-from=",
        "starting-file=",
        "from-file=",
        "to-file=",
        "minimal",
        "horizon-lines=",
        "speed-large-files",
        "color=?",
        "palette=",
        "no-dereference",
        "ignore-file-name-case",
        "no-ignore-file-name-case",
        "help",
        "version",
        "!paginate",
    ],
    digits: true,
    ..Argv::NONE
};

/// `column` (util-linux): `-o` is the output separator, a string.
pub(super) const COLUMN: Argv = Argv {
    flags: "deJLmntx",
    valued: "cCEHlNoOrRsTW",
    long: &[
        "columns=",
        "table",
        "table-name=",
        "table-order=",
        "table-columns=",
        "table-columns-limit=",
        "table-empty-lines",
        "table-hide=",
        "table-right=",
        "table-truncate=",
        "table-wrap=",
        "table-noextreme=",
        "table-noheadings",
        "table-maxout",
        "table-tree=",
        "table-tree-id=",
        "table-tree-parent=",
        "json",
        "keep-empty-lines",
        "output-separator=",
        "separator=",
        "fillrows",
        "output-width=",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `sha256sum`, `md5sum`.
pub(super) const SUMS: Argv = Argv {
    flags: "bctwz",
    long: &[
        "binary",
        "check",
        "tag",
        "text",
        "zero",
        "ignore-missing",
        "quiet",
        "status",
        "strict",
        "warn",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `jq`: jq(1) has no way to write a file or run a program (no `system`, no output file);
/// its options choose how it reads and prints, and read files at most (`--slurpfile`,
/// `--rawfile`, `-f`, `-L`). Options as jq 1.7 lists them.
pub(super) const JQ: Argv = Argv {
    flags: "ncrjaSCMsehVf",
    valued: "L",
    long: &[
        "null-input",
        "compact-output",
        "raw-output",
        "raw-output0",
        "join-output",
        "ascii-output",
        "sort-keys",
        "color-output",
        "monochrome-output",
        "tab",
        "indent=",
        "unbuffered",
        "stream",
        "stream-errors",
        "seq",
        "slurp",
        "raw-input",
        "exit-status",
        "from-file",
        "arg",
        "argjson",
        "slurpfile",
        "rawfile",
        "args",
        "jsonargs",
        "help",
        "version",
        "build-configuration",
    ],
    prefixes: false,
    ..Argv::NONE
};
