//! The built-in rules: commands that only read, or build and test inside the sandbox, run
//! without asking under `ask` and `auto-edit`. They are listed by `warden config show` and
//! turned off by `[tools] builtin_rules = false` (user or managed layer).

use super::readonly::git::READS as GIT_READS;
use super::rule::{Decision, Rule, RuleOrigin};

/// (id, argv prefix, unless, why, example).
type Spec = (
    &'static str,
    &'static [&'static [&'static str]],
    &'static [&'static str],
    &'static str,
    &'static str,
);

const READS: &str = "reads only; the sandbox still confines it";
const BUILDS: &str = "builds or tests inside the sandbox";
const FIND: &str = "lists files; a command it runs with `-exec` is judged on its own";
const SHELL: &str = "changes nothing outside the shell";

/// The rules that are read-only by construction: each matches only an argv whose every
/// option and operand is on its program's positive list ([`super::readonly`]).
const READ_ONLY: &[&str] = &[
    "builtin:read-files",
    "builtin:search",
    "builtin:find",
    "builtin:text",
    "builtin:shell",
    "builtin:git-read",
];

const SPECS: &[Spec] = &[
    (
        "builtin:read-files",
        &[&[
            "ls", "cat", "head", "tail", "wc", "file", "stat", "du", "df", "tree", "realpath",
            "dirname", "basename", "cmp", "cut", "tr", "nl", "less", "more",
        ]],
        &[],
        READS,
        "ls -la src",
    ),
    (
        "builtin:search",
        &[&["grep", "egrep", "fgrep", "rg"]],
        &[],
        READS,
        "grep -rn TODO src",
    ),
    (
        "builtin:find",
        &[&["find"]],
        &[],
        FIND,
        "find . -name '*.rs'",
    ),
    (
        "builtin:text",
        &[&[
            "sort",
            "uniq",
            "diff",
            "jq",
            "column",
            "sha256sum",
            "md5sum",
        ]],
        &[],
        READS,
        "sort -u names.txt",
    ),
    (
        "builtin:shell",
        &[&[
            "cd", "pwd", "echo", "printf", "true", "false", "test", "[", "which", "type", "date",
            "whoami", "uname", "id", "export", "sleep", "seq",
        ]],
        &[],
        SHELL,
        "cd src",
    ),
    (
        "builtin:git-read",
        &[&["git"], GIT_READS],
        &[],
        READS,
        "git diff --stat",
    ),
    (
        "builtin:cargo",
        &[
            &["cargo"],
            &[
                "check", "test", "build", "clippy", "tree", "metadata", "bench", "doc",
            ],
        ],
        // cargo(1): `--config` and `-Z` change what runs (a runner, a linker, a rustc
        // wrapper), `--manifest-path` and `--lockfile-path` build another package.
        &[
            "--fix",
            "--config*",
            "-Z*",
            "--manifest-path*",
            "--lockfile-path*",
        ],
        BUILDS,
        "cargo test -p warden",
    ),
    (
        "builtin:npm-test",
        &[&["npm", "pnpm", "yarn"], &["test"]],
        // npm-config(7): these pick another package, configuration or shell.
        &[
            "--prefix*",
            "--script-shell*",
            "--userconfig*",
            "--globalconfig*",
            "--node-options*",
            "--cwd*",
            "--dir*",
        ],
        BUILDS,
        "npm test",
    ),
    (
        "builtin:pytest",
        &[&["pytest"]],
        // pytest: `-p` loads a plugin module, `-c`/`--rootdir` read another configuration.
        &["-p*", "-c", "--config-file*", "--rootdir*", "--confcutdir*"],
        BUILDS,
        "pytest -q tests",
    ),
    (
        "builtin:python-pytest",
        &[&["python", "python3"], &["-m"], &["pytest"]],
        &["-p*", "-c", "--config-file*", "--rootdir*", "--confcutdir*"],
        BUILDS,
        "python -m pytest",
    ),
    (
        "builtin:go",
        &[&["go"], &["test", "build", "vet"]],
        // go help build: `-exec` and `-toolexec` run a program of the command's choosing,
        // `-C` builds elsewhere, `-modfile` and `-overlay` replace files.
        &[
            "-exec*",
            "--exec*",
            "-toolexec*",
            "--toolexec*",
            "-C*",
            "-modfile*",
            "--modfile*",
            "-overlay*",
            "--overlay*",
        ],
        BUILDS,
        "go test ./...",
    ),
];

/// The built-in rules, all `allow`.
pub fn builtin_rules() -> Vec<Rule> {
    SPECS
        .iter()
        .map(|(id, command, unless, why, example)| Rule {
            id: (*id).to_owned(),
            decision: Decision::Allow,
            why: (*why).to_owned(),
            command: command
                .iter()
                .map(|alts| alts.iter().map(|a| (*a).to_owned()).collect())
                .collect(),
            unless: unless.iter().map(|u| (*u).to_owned()).collect(),
            exact: false,
            read_only: READ_ONLY.contains(id),
            tools: Vec::new(),
            paths: Vec::new(),
            examples: vec![(*example).to_owned()],
            not_examples: Vec::new(),
            escalate: None,
            workspace: None,
            origin: RuleOrigin {
                layer: "builtin".to_owned(),
                file: None,
                line: 0,
            },
        })
        .collect()
}
