//! Shell builtins and small programs that change nothing outside the shell. What an
//! assignment or `export` changes for later commands is the split's concern (it marks a
//! variable that changes what runs as uncertain).

use super::argv::Argv;
use crate::domain::shell_split::Word;

/// `cd [-L|-P [-e]] [DIR]`.
pub(super) const CD: Argv = Argv {
    flags: "LPe",
    operands: Some(1),
    expands: true,
    ..Argv::NONE
};

/// `pwd`.
pub(super) const PWD: Argv = Argv {
    flags: "LP",
    operands: Some(0),
    expands: true,
    ..Argv::NONE
};

/// `which` (`-a`, `-s`; GNU which's `--read-alias` and `--read-functions` read commands from
/// standard input and are not listed).
pub(super) const WHICH: Argv = Argv {
    flags: "as",
    long: &[
        "all",
        "skip-alias",
        "skip-functions",
        "skip-dot",
        "skip-tilde",
        "help",
        "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `type`.
pub(super) const TYPE: Argv = Argv {
    flags: "afptP",
    expands: true,
    ..Argv::NONE
};

/// `date`: date(1) sets the clock with `-s`/`--set`; not listed.
pub(super) const DATE: Argv = Argv {
    flags: "Ruj",
    valued: "dfr",
    long: &[
        "date=",
        "debug",
        "file=",
        "iso-8601=?",
        "resolution",
        "rfc-email",
        "rfc-3339=",
        "reference=",
        "utc",
        "universal",
        "help",
        "version",
        "!set",
    ],
    ..Argv::NONE
};

/// `whoami`.
pub(super) const WHOAMI: Argv = Argv {
    long: &["help", "version"],
    operands: Some(0),
    expands: true,
    ..Argv::NONE
};

/// `uname`.
pub(super) const UNAME: Argv = Argv {
    flags: "asnrvmpio",
    long: &[
        "all",
        "kernel-name",
        "nodename",
        "kernel-release",
        "kernel-version",
        "machine",
        "processor",
        "hardware-platform",
        "operating-system",
        "help",
        "version",
    ],
    operands: Some(0),
    expands: true,
    ..Argv::NONE
};

/// `id`.
pub(super) const ID: Argv = Argv {
    flags: "agGnruzZ",
    long: &[
        "context", "group", "groups", "name", "real", "user", "zero", "help", "version",
    ],
    expands: true,
    ..Argv::NONE
};

/// `sleep DURATION…`.
pub(super) const SLEEP: Argv = Argv {
    long: &["help", "version"],
    expands: true,
    ..Argv::NONE
};

/// `seq` (a negative first number reads as `-NUM`).
pub(super) const SEQ: Argv = Argv {
    flags: "w",
    valued: "fs",
    long: &["format=", "separator=", "equal-width", "help", "version"],
    digits: true,
    operands: Some(3),
    expands: true,
    ..Argv::NONE
};

/// `echo`, `true`, `false`, `test`, `[`: any words (they print or compare them).
pub(super) fn any(_: &[Word]) -> bool {
    true
}

/// `printf FORMAT [ARG]…`: `-v VAR` assigns a variable (what a later command sees) instead
/// of printing, and is refused.
pub(super) fn printf(args: &[Word]) -> bool {
    args.first()
        .is_none_or(|w| w.literal && !w.text.starts_with("-v"))
}

/// `export NAME[=VALUE]…`: names only (no `-f`, `-n`, `-p`), each literal.
pub(super) fn export(args: &[Word]) -> bool {
    args.iter().all(|w| w.literal && !w.text.starts_with('-'))
}
