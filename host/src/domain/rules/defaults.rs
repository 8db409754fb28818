//! The built-in rules: commands that only read, or build and test inside the sandbox, run
//! without asking under `ask` and `auto-edit`. They are listed by `warden config show` and
//! turned off by `[tools] builtin_rules = false` (user or managed layer).

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
        &["--pre*"],
        READS,
        "grep -rn TODO src",
    ),
    (
        "builtin:find",
        &[&["find"]],
        &["-delete", "-fprint*", "-fls"],
        "lists files; a command it runs with `-exec` is judged on its own",
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
        &["-o*", "--output*"],
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
        "changes nothing outside the shell",
        "cd src",
    ),
    (
        "builtin:git-read",
        &[
            &["git"],
            &[
                "status",
                "diff",
                "log",
                "show",
                "blame",
                "rev-parse",
                "ls-files",
                "describe",
                "shortlog",
            ],
        ],
        &["--output*", "--ext-diff"],
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
        &["--fix"],
        BUILDS,
        "cargo test -p warden",
    ),
    (
        "builtin:npm-test",
        &[&["npm", "pnpm", "yarn"], &["test"]],
        &[],
        BUILDS,
        "npm test",
    ),
    (
        "builtin:pytest",
        &[&["pytest"]],
        &[],
        BUILDS,
        "pytest -q tests",
    ),
    (
        "builtin:python-pytest",
        &[&["python", "python3"], &["-m"], &["pytest"]],
        &[],
        BUILDS,
        "python -m pytest",
    ),
    (
        "builtin:go",
        &[&["go"], &["test", "build", "vet"]],
        &[],
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
