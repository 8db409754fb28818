//! The shell split behind `[[rules]]`, against its corpus (`tests/rules/corpus.txt`: each
//! command's verdict and the programs it lists) and against real shells: every corpus entry,
//! and 10 000 generated commands, run under `bash` and `/bin/sh` in a private temporary
//! directory with a `PATH` of recording stubs. A program that ran and that the split did not
//! list is a failure (unless the split said something was uncertain: then no rule can allow
//! the command). Commands are batched, many per shell process, each in its own subshell.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use warden::domain::rules::{Decision, Rule, RuleOrigin, RuleSet, builtin_rules};
use warden::domain::shell_split::split;

fn corpus_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/corpus.txt")
}

struct Entry {
    command: String,
    expected: Option<String>,
}

fn read_corpus() -> Vec<Entry> {
    let text = std::fs::read_to_string(corpus_path()).unwrap();
    let mut entries: Vec<Entry> = Vec::new();
    for line in text.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            entries.push(Entry {
                command: command.to_owned(),
                expected: None,
            });
        } else if let Some(more) = line.strip_prefix("> ").or(line.strip_prefix(">")) {
            let last = entries.last_mut().unwrap();
            last.command.push('\n');
            last.command.push_str(more);
        } else if let Some(expected) = line.strip_prefix("= ") {
            entries.last_mut().unwrap().expected = Some(expected.to_owned());
        }
    }
    entries
}

fn rule(id: &str, decision: Decision, command: &[&str]) -> Rule {
    Rule {
        id: id.to_owned(),
        decision,
        why: String::new(),
        command: command.iter().map(|w| vec![(*w).to_owned()]).collect(),
        unless: Vec::new(),
        exact: false,
        read_only: false,
        tools: Vec::new(),
        paths: Vec::new(),
        examples: Vec::new(),
        not_examples: Vec::new(),
        workspace: None,
        escalate: None,
        origin: RuleOrigin {
            layer: "managed".to_owned(),
            file: None,
            line: 1,
        },
    }
}

fn corpus_rules() -> RuleSet {
    let mut rules = vec![
        rule("no-push", Decision::Deny, &["git", "push"]),
        rule("ask-publish", Decision::Ask, &["npm", "publish"]),
    ];
    rules.extend(builtin_rules());
    RuleSet {
        rules,
        ..RuleSet::default()
    }
}

/// `allow | cd cargo` (`!` at the end when something is uncertain).
fn describe(rules: &RuleSet, command: &str) -> String {
    let judgement = rules.judge_shell(command);
    let split = split(command);
    format!(
        "{} | {}{}",
        judgement.decision.map_or("none", Decision::name),
        split.programs().join(" "),
        if split.uncertain.is_empty() { "" } else { " !" }
    )
}

#[test]
fn the_corpus_splits_and_judges_as_written() {
    let entries = read_corpus();
    assert!(entries.len() >= 300, "{} entries", entries.len());
    let rules = corpus_rules();
    if std::env::var_os("WARDEN_BLESS_CORPUS").is_some() {
        bless(&entries, &rules);
        return;
    }
    let mut wrong = Vec::new();
    for entry in &entries {
        let got = describe(&rules, &entry.command);
        if entry.expected.as_deref() != Some(got.as_str()) {
            wrong.push(format!(
                "{:?}\n  expected {:?}\n  got      {got}",
                entry.command, entry.expected
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Each verdict occurs, and so does an uncertain split.
    let all: Vec<String> = entries.iter().filter_map(|e| e.expected.clone()).collect();
    for verdict in ["allow |", "none |", "deny |", "ask |"] {
        assert!(all.iter().any(|e| e.starts_with(verdict)), "{verdict}");
    }
}

/// Write the expectations the split gives now (reviewed by hand before committing).
fn bless(entries: &[Entry], rules: &RuleSet) {
    let text = std::fs::read_to_string(corpus_path()).unwrap();
    let mut out = String::new();
    let mut at = 0;
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.starts_with("= ") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line.starts_with("$ ") {
            while i < lines.len() && lines[i].starts_with('>') {
                out.push_str(lines[i]);
                out.push('\n');
                i += 1;
            }
            let _ = writeln!(out, "= {}", describe(rules, &entries[at].command));
            at += 1;
        }
    }
    std::fs::write(corpus_path(), out).unwrap();
}

/// Programs that run another program: their stub records itself, then runs the real one.
const WRAPPERS: &[&str] = &[
    "env", "xargs", "find", "timeout", "nice", "nohup", "stdbuf", "sh", "bash", "dash",
];

/// Names every run has a stub for (besides every program the corpus lists).
const STUBS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "git",
    "cargo",
    "npm",
    "pytest",
    "python",
    "python3",
    "go",
    "grep",
    "rg",
    "cp",
    "rm",
    "mv",
    "tee",
    "pwd",
    "true",
    "false",
    "test",
    "printf",
    "echo",
    "diff",
    "which",
    "uname",
    "date",
    "curl",
    "wget",
    "sed",
    "awk",
    "sort",
    "uniq",
    "jq",
    "tar",
    "whoami",
    "sleep",
    "seq",
    "yes",
    "od",
    "cut",
    "tr",
    "cmp",
    "sha256sum",
    "du",
    "df",
    "stat",
    "file",
    "tree",
    "realpath",
    "basename",
    "dirname",
    "make",
    "docker",
    "npx",
    "yarn",
    "pnpm",
    "node",
    "perl",
    "sudo",
    "ssh",
    "watch",
    "mkdir",
    "touch",
    "chmod",
    "time",
    "coproc",
    "x",
    "f",
    "g",
    "ll",
    "evil",
    "tool",
    "rustc",
    "zsh",
    "1",
    "[[",
    "function",
];

/// Batches run at a time, each with its own stubs and record file.
const SLOTS: usize = 4;

struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// Per slot: the stubs' directory (the whole `PATH`) and the file they record to.
    slots: Vec<(String, PathBuf)>,
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var("PATH").ok()?.split(':').find_map(|dir| {
        let candidate = Path::new(dir).join(name);
        candidate.is_file().then_some(candidate)
    })
}

impl Sandbox {
    fn new(extra: &BTreeSet<String>) -> Self {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_owned();
        let stubs = root.join("stubs");
        let work = root.join("work");
        std::fs::create_dir_all(&stubs).unwrap();
        std::fs::create_dir_all(work.join("src")).unwrap();
        for file in [
            "a.rs",
            "in.txt",
            "files.txt",
            "Cargo.toml",
            "src/lib.rs",
            "x",
        ] {
            std::fs::write(work.join(file), "a\n").unwrap();
        }
        let names: BTreeSet<String> = STUBS
            .iter()
            .chain(WRAPPERS)
            .map(|s| (*s).to_owned())
            .chain(extra.iter().cloned())
            .filter(|n| {
                !matches!(n.as_str(), "" | "." | "..")
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-.+[".contains(c))
            })
            .collect();
        let mut slots = Vec::new();
        for slot in 0..SLOTS {
            let stubs = root.join(format!("stubs{slot}"));
            let record = root.join(format!("record{slot}"));
            std::fs::create_dir_all(&stubs).unwrap();
            for name in &names {
                let mut script = format!(
                    "#!/bin/sh\nprintf '%s\\n' '{name}' >> '{}'\n",
                    record.display()
                );
                if WRAPPERS.contains(&name.as_str()) {
                    let real = which(name).unwrap_or_else(|| panic!("no real {name} on PATH"));
                    let _ = writeln!(script, "exec '{}' \"$@\"", real.display());
                } else if name == "time" {
                    script
                        .push_str("while [ \"${1#-}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n");
                }
                let path = stubs.join(name);
                std::fs::write(&path, script).unwrap();
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            slots.push((stubs.to_string_lossy().into_owned(), record));
        }
        Self {
            _dir: dir,
            root,
            slots,
        }
    }

    /// Run each command under `shell` (one process per batch of 250, four batches at a
    /// time, each command in a subshell of its own): the programs each one ran. Every process
    /// a command starts inherits fd 9, the write end of a pipe that the shell reads to its end, so
    /// the next command starts only when all of them are gone: what the shell does not wait
    /// for (a process substitution, a job left in the background) is recorded for its own
    /// command.
    fn run(&self, shell: &str, commands: &[String]) -> Vec<BTreeSet<String>> {
        let batches: Vec<(usize, &[String])> = commands.chunks(250).enumerate().collect();
        let mut out: Vec<Vec<BTreeSet<String>>> = vec![Vec::new(); batches.len()];
        for group in batches.chunks(SLOTS) {
            let results: Vec<(usize, Vec<BTreeSet<String>>)> = std::thread::scope(|scope| {
                let handles: Vec<_> = group
                    .iter()
                    .map(|(n, batch)| scope.spawn(move || (*n, self.run_batch(shell, *n, batch))))
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            for (n, ran) in results {
                out[n] = ran;
            }
        }
        out.into_iter().flatten().collect()
    }

    fn run_batch(&self, shell: &str, n: usize, batch: &[String]) -> Vec<BTreeSet<String>> {
        let cmds = self.root.join(format!("cmds{n}"));
        let (path, record) = &self.slots[n % SLOTS];
        std::fs::create_dir_all(&cmds).unwrap();
        let _ = std::fs::remove_file(record);
        let mut script = String::new();
        for (i, command) in batch.iter().enumerate() {
            let file = cmds.join(i.to_string());
            std::fs::write(&file, command).unwrap();
            let _ = writeln!(
                script,
                "echo '### {i}' >> '{rec}'\n( cd '{work}' && . '{file}'; wait ) 9>&1 </dev/null >/dev/null 2>&1 | while read -r _; do :; done",
                rec = record.display(),
                work = self.root.join("work").display(),
                file = file.display(),
            );
        }
        std::process::Command::new(shell)
            .arg("-c")
            .arg(&script)
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.root.join("work"))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        let text = std::fs::read_to_string(record).unwrap_or_default();
        let mut ran: Vec<BTreeSet<String>> = vec![BTreeSet::new(); batch.len()];
        let mut current = None;
        for line in text.lines() {
            if let Some(i) = line.strip_prefix("### ") {
                current = i.parse::<usize>().ok();
            } else if let Some(i) = current {
                ran[i].insert(line.to_owned());
            }
        }
        ran
    }
}

/// Each command whose run shows a program the split did not list (and said nothing was
/// uncertain), with that program.
fn missed(commands: &[String], shells: &[&str]) -> (Vec<String>, usize) {
    let mut names = BTreeSet::new();
    for command in commands {
        names.extend(split(command).programs());
    }
    let sandbox = Sandbox::new(&names);
    let mut failures = Vec::new();
    let mut programs_seen = 0;
    for shell in shells {
        let ran = sandbox.run(shell, commands);
        for (command, ran) in commands.iter().zip(ran) {
            programs_seen += ran.len();
            let split = split(command);
            if !split.uncertain.is_empty() {
                continue;
            }
            let listed: BTreeSet<String> = split.programs().into_iter().collect();
            for program in ran.difference(&listed) {
                failures.push(format!(
                    "{shell}: {command:?} ran `{program}`, listed {listed:?}"
                ));
            }
        }
    }
    (failures, programs_seen)
}

#[test]
fn the_harness_records_every_program_that_runs() {
    let commands: Vec<String> = ["ls -la", "sh -c 'rm x'", "echo a | xargs touch", "true"]
        .iter()
        .map(|c| (*c).to_owned())
        .collect();
    let sandbox = Sandbox::new(&BTreeSet::new());
    let ran = sandbox.run("/bin/sh", &commands);
    let set = |names: &[&str]| {
        names
            .iter()
            .map(|n| (*n).to_owned())
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(
        ran,
        [
            set(&["ls"]),
            set(&["sh", "rm"]),
            set(&["xargs", "touch"]),
            set(&[])
        ]
    );
}

/// A process substitution is not waited for by the shell: what it runs after a delay is still
/// recorded for its own command, not for one that follows it.
#[test]
fn the_harness_records_a_late_process_substitution_for_its_own_command() {
    let late = "ls > >(i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; tee out)";
    let commands: Vec<String> = [late, "true", "cat in.txt"]
        .iter()
        .map(|c| (*c).to_owned())
        .collect();
    let sandbox = Sandbox::new(&BTreeSet::new());
    let ran = sandbox.run("/bin/bash", &commands);
    let names = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>();
    assert_eq!(
        ran.iter().map(names).collect::<Vec<_>>(),
        [vec!["ls", "tee"], vec![], vec!["cat"]]
    );
}

#[test]
fn every_program_a_corpus_command_runs_under_bash_and_sh_is_listed() {
    let commands: Vec<String> = read_corpus().into_iter().map(|e| e.command).collect();
    let (failures, seen) = missed(&commands, &["/bin/bash", "/bin/sh"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The stubs did record: the harness sees programs run.
    assert!(seen > commands.len(), "{seen} programs recorded");
}

/// A generated command: lists, pipelines, groups, substitutions, wrappers, quoting.
fn command_strategy() -> impl Strategy<Value = String> {
    let program = prop::sample::select(vec![
        "ls", "cat", "git", "cargo", "rm", "echo", "grep", "curl", "tee", "python", "make", "sudo",
        "touch", "printf", "test",
    ]);
    let arg = prop::sample::select(vec![
        "status",
        "push",
        "-la",
        "src",
        "test",
        "'a b'",
        "\"x y\"",
        "a\\ b",
        "--",
        "-n",
        "1",
        "'$(rm x)'",
        "\"\\$(rm x)\"",
        "'`rm x`'",
        "\\;",
        "'|'",
        "\"&&\"",
        "x.txt",
        "'#'",
    ]);
    let leaf = (program, prop::collection::vec(arg, 0..3)).prop_map(|(p, args)| {
        let mut words = vec![p.to_owned()];
        words.extend(args.into_iter().map(str::to_owned));
        words.join(" ")
    });
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} || {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}; {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
            inner.clone().prop_map(|a| format!("( {a} )")),
            inner.clone().prop_map(|a| format!("{{ {a}; }}")),
            inner.clone().prop_map(|a| format!("echo $({a})")),
            inner.clone().prop_map(|a| format!("echo \"$({a})\"")),
            inner
                .clone()
                .prop_map(|a| format!("ls `{}`", a.replace('`', "\\`"))),
            inner
                .clone()
                .prop_map(|a| format!("sh -c '{}'", a.replace('\'', "'\\''"))),
            inner.clone().prop_map(|a| format!(
                "bash -c \"{}\"",
                a.replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('$', "\\$")
                    .replace('`', "\\`")
            )),
            inner.clone().prop_map(|a| format!("env A=1 {a}")),
            inner.clone().prop_map(|a| format!("timeout 5 {a}")),
            inner.clone().prop_map(|a| format!("nice -n 1 {a}")),
            inner.clone().prop_map(|a| format!("nohup {a}")),
            inner.clone().prop_map(|a| format!("echo x | xargs {a}")),
            inner
                .clone()
                .prop_map(|a| format!("find . -name a.rs -exec {a} \\;")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("if {a}; then {b}; fi")),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("for i in 1 2; do {a}; {b}; done")),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("case x in x) {a} ;; *) {b} ;; esac")),
            inner
                .clone()
                .prop_map(|a| format!("cat <<EOF\n$({a})\nEOF")),
            inner.clone().prop_map(|a| format!("{a} > out.txt 2>&1")),
            inner.prop_map(|a| format!("X=$({a}) ls")),
        ]
    })
}

#[test]
fn ten_thousand_generated_commands_run_no_program_the_split_did_not_list() {
    let strategy = command_strategy();
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let commands: Vec<String> = (0..10_000)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    let (failures, seen) = missed(&commands, &["/bin/sh"]);
    assert!(
        failures.is_empty(),
        "{} misses, first: {}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(seen > commands.len(), "{seen} programs recorded");
}
