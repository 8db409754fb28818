use super::*;

fn rule(id: &str, decision: Decision, command: &[&[&str]]) -> Rule {
    Rule {
        id: id.to_owned(),
        decision,
        why: String::new(),
        command: command
            .iter()
            .map(|a| a.iter().map(|s| (*s).to_owned()).collect())
            .collect(),
        unless: Vec::new(),
        exact: false,
        read_only: false,
        tools: Vec::new(),
        paths: Vec::new(),
        examples: Vec::new(),
        not_examples: Vec::new(),
        escalate: None,
        workspace: None,
        origin: RuleOrigin {
            layer: "user".into(),
            file: None,
            line: 1,
        },
    }
}

#[test]
fn the_strictest_decision_of_every_simple_command_wins() {
    let mut set = RuleSet {
        rules: builtin_rules(),
        ..RuleSet::default()
    };
    set.rules
        .push(rule("push", Decision::Deny, &[&["git"], &["push"]]));
    let j = set.judge_shell("cd src && cargo test | tee out");
    assert_eq!(j.decision, None, "tee has no rule");
    let j = set.judge_shell("cd src && cargo test");
    assert_eq!(j.decision, Some(Decision::Allow));
    let j = set.judge_shell("git status; git push");
    assert_eq!(j.decision, Some(Decision::Deny));
    assert_eq!(set.ids(&j).as_deref(), Some("push"));
    let j = set.judge_shell("cargo test && curl x | sh");
    assert_eq!(
        j.decision,
        Some(Decision::Ask),
        "uncertain with deny rules in force"
    );
    let j = set.judge_shell("eval 'git push'");
    assert_eq!(j.decision, Some(Decision::Ask));
    let j = set.judge_shell("env FOO=1 timeout 5 git push origin");
    assert_eq!(j.decision, Some(Decision::Deny));
    let j = set.judge_shell("bash -lc 'git status && git push'");
    assert_eq!(j.decision, Some(Decision::Deny));
}

#[test]
fn a_non_literal_word_never_matches_a_prefix() {
    let set = RuleSet {
        rules: vec![rule("st", Decision::Allow, &[&["git"], &["status"]])],
        ..RuleSet::default()
    };
    assert_eq!(
        set.judge_shell("git status").decision,
        Some(Decision::Allow)
    );
    assert_eq!(
        set.judge_shell("git \"status\"").decision,
        Some(Decision::Allow)
    );
    assert_eq!(set.judge_shell("git $x").decision, None);
    assert_eq!(set.judge_shell("git stat*").decision, None);
    assert_eq!(set.judge_shell("$g status").decision, None);
}

#[test]
fn built_in_examples_match_and_find_without_delete() {
    let set = RuleSet {
        rules: builtin_rules(),
        ..RuleSet::default()
    };
    for rule in &set.rules {
        for example in &rule.examples {
            assert!(rule.matches_example(example), "{} {example}", rule.id);
        }
    }
    assert_eq!(set.judge_shell("find . -delete").decision, None);
    assert_eq!(
        set.judge_shell("find . -name x -exec grep -l y {} +")
            .decision,
        Some(Decision::Allow)
    );
    assert_eq!(set.judge_shell("find . -exec rm {} ;").decision, None);
}

#[test]
fn globs_on_tools_and_paths() {
    assert!(glob_match("mcp__github__*", "mcp__github__create_issue"));
    assert!(!glob_match("mcp__github__*", "mcp__gitlab__x"));
    assert!(glob_match("src/**", "src/a/b.rs"));
    assert!(glob_match("src/**/*.rs", "src/b.rs"));
    assert!(!glob_match("src/*", "src/a/b.rs"));
    let mut lock = rule("lock", Decision::Ask, &[]);
    lock.paths = vec!["Cargo.lock".into()];
    assert!(lock.matches_tool("write_file", Some("sub/Cargo.lock")));
    assert!(!lock.matches_tool("read_file", Some("Cargo.lock")));
}

#[test]
fn the_narrowest_prefix_never_is_a_bare_interpreter() {
    assert_eq!(
        narrowest_prefix("cargo test -p warden"),
        Some(vec![vec!["cargo".to_owned(), "test".to_owned()]])
    );
    assert_eq!(
        narrowest_prefix("cd src && ls -la"),
        Some(vec![vec!["cd".to_owned()], vec!["ls".to_owned()]])
    );
    assert_eq!(narrowest_prefix("bash"), None);
    assert_eq!(narrowest_prefix("curl x | sh"), None);
    assert_eq!(
        narrowest_prefix("awk \"{print $x}\" f"),
        None,
        "not literal"
    );
}

fn words(all: &[&str]) -> Vec<String> {
    all.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn always_saves_the_exact_command_of_a_program_that_runs_its_arguments() {
    let exact = |command: &str| narrowest(command).unwrap_or_default();
    for (command, argv) in [
        ("awk '{print $1}' f", &["awk", "{print $1}", "f"][..]),
        ("sed -n 1p f", &["sed", "-n", "1p", "f"]),
        (
            "/usr/bin/perl -ne print f",
            &["/usr/bin/perl", "-ne", "print", "f"],
        ),
        ("python -c 'print(1)'", &["python", "-c", "print(1)"]),
        ("env A=1 python x.py", &["python", "x.py"]),
        ("nice find . -name x", &["find", ".", "-name", "x"]),
        ("make all", &["make", "all"]),
        (
            "git -c core.pager=cat log",
            &["git", "-c", "core.pager=cat", "log"],
        ),
        ("cargo +nightly test", &["cargo", "+nightly", "test"]),
    ] {
        assert_eq!(
            exact(command),
            vec![Saved {
                words: words(argv),
                exact: true
            }],
            "{command}"
        );
    }
    assert_eq!(
        exact("git status"),
        vec![Saved {
            words: words(&["git", "status"]),
            exact: false
        }]
    );
    let saved = &exact("awk '{print $1}' f")[0];
    assert_eq!(saved.shown(), "awk '{print $1}' f (exactly)");
    assert_eq!(exact("cargo test -p x")[0].shown(), "cargo test …");
}

#[test]
fn an_exact_rule_matches_that_argv_and_nothing_longer() {
    let mut awk = rule("awk", Decision::Allow, &[&["awk"], &["{print $1}"], &["f"]]);
    awk.exact = true;
    let set = RuleSet {
        rules: vec![awk],
        ..RuleSet::default()
    };
    assert_eq!(
        set.judge_shell("awk '{print $1}' f").decision,
        Some(Decision::Allow)
    );
    for other in [
        "awk '{print $1}' f g",
        "awk '{print $1}' f 'BEGIN{system(\"touch x\")}'",
        "awk 'BEGIN{system(\"touch x\")}'",
        "awk '{print $1}'",
    ] {
        assert_eq!(set.judge_shell(other).decision, None, "{other}");
    }
}

#[test]
fn a_deny_holds_through_global_options() {
    let mut set = RuleSet {
        rules: builtin_rules(),
        ..RuleSet::default()
    };
    set.rules
        .push(rule("push", Decision::Deny, &[&["git"], &["push"]]));
    set.rules.push(rule(
        "publish",
        Decision::Deny,
        &[&["cargo", "npm"], &["publish"]],
    ));
    set.rules
        .push(rule("go-run", Decision::Ask, &[&["go"], &["run"]]));
    for command in [
        "git -C . push",
        "git --no-pager push",
        "git -c x=y push",
        "git --git-dir=.git --work-tree . push",
        "git --namespace n -P --bare --literal-pathspecs push origin",
        "/usr/bin/git -C sub push",
        "git -C $d push",
        "cargo +nightly --config x -Z y -C sub --manifest-path a/Cargo.toml publish",
        "npm --prefix sub -w a publish",
        "npm --workspace=a publish",
        "env A=1 git -C . push",
    ] {
        assert_eq!(
            set.judge_shell(command).decision,
            Some(Decision::Deny),
            "{command}"
        );
    }
    assert_eq!(
        set.judge_shell("go -C sub run .").decision,
        Some(Decision::Ask)
    );
    // An option not understood next to a program a deny rule names is refused, with why.
    let j = set.judge_shell("git --frobnicate push");
    assert_eq!(j.decision, Some(Decision::Deny));
    assert!(
        set.reason(&j).contains("`--frobnicate`"),
        "{}",
        set.reason(&j)
    );
    // A non-literal word where the subcommand would be may still be `push`: ask.
    assert_eq!(set.judge_shell("git -C . $x").decision, Some(Decision::Ask));
    // Reads through a safe global option stay allowed; others are not read-only.
    assert_eq!(
        set.judge_shell("git --no-pager diff").decision,
        Some(Decision::Allow)
    );
    assert_eq!(set.judge_shell("git -C sub status").decision, None);
    assert_eq!(set.judge_shell("git -c core.pager=sh log").decision, None);
}

#[test]
fn variables_that_change_what_runs_keep_a_command_from_allow() {
    let set = RuleSet {
        rules: builtin_rules(),
        ..RuleSet::default()
    };
    for command in [
        "HOME=. git status",
        "XDG_CONFIG_HOME=x git diff",
        "export HOME=.; git status",
        "HOME=.; git status",
        "env HOME=. git log",
        "PYTHONPATH=. pytest",
        "NODE_OPTIONS=--require=./x npm test",
        "LESSOPEN='|sh x' less f",
        "declare -x HOME=. && git status",
        "readonly HOME=.; git status",
        "printf -v HOME . && git status",
        "ls | xargs cat",
        "echo x | xargs git diff",
        "find . -name '*.rs' | xargs grep x",
    ] {
        assert_eq!(set.judge_shell(command).decision, None, "{command}");
    }
    assert_eq!(
        set.judge_shell("LC_ALL=C sort f").decision,
        Some(Decision::Allow)
    );
}

#[test]
fn the_built_in_allows_are_read_only_by_construction() {
    let set = RuleSet {
        rules: builtin_rules(),
        ..RuleSet::default()
    };
    for command in [
        "sort -uo out f",
        "sort --ou=out f",
        "sort --output out f",
        "sort --compress-program=sh f",
        "sort --comp=sh f",
        "sort -T /tmp f",
        "uniq in out",
        "uniq -c in out",
        "tree -o out",
        "tree -R",
        "tree -Lo 2 out",
        "file -C -m magic",
        "file -z f",
        "rg --pre sh x",
        "rg -z x",
        "rg --search-zip x",
        "less +!sh f",
        "less -o log f",
        "find . -delete",
        "find . -fprint out",
        "find . -exec echo + -delete ;",
        "diff -l a b",
        "git diff --output=x",
        "git diff --ext-diff",
        "git log --show-signature",
        "git -p log",
        "git --bare log",
        "date -s 2020-01-01",
        "sort $f",
        "sort * ",
        "uniq f*",
        "uniq -f $n f",
        "tree $d",
        "cargo test --config 'target.x.runner=\"sh\"'",
        "cargo test -Zunstable-options",
        "go test -exec sh ./...",
        "npm test --script-shell=sh",
        "pytest -p evil",
    ] {
        let j = set.judge_shell(command);
        assert_eq!(j.decision, None, "{command}: {:?}", j.rules);
    }
    for command in [
        "ls -la src",
        "sort -u -k2,2 -t: names.txt",
        "sort --rev f",
        "uniq -c f",
        "head -20 f",
        "tail -n5 f",
        "grep -rn TODO src",
        "grep -C3 -e x src/*.rs",
        "rg -n --hidden foo",
        "find . -name '*.rs' -type f -print",
        "find . -exec grep -l x {} +",
        "git --no-pager log --oneline -5",
        "git diff --stat HEAD~1",
        "git status -sb",
        "git blame -L 1,5 src/main.rs",
        "diff -u a b",
        "cmp a b",
        "tr a-z A-Z",
        "jq -r .name package.json",
        "wc -l src/*.rs",
        "seq -5 5",
        "cd src",
        "echo hi",
        "cat \"$f\" ~/.bashrc $(ls)",
        "head -n $n f",
    ] {
        let j = set.judge_shell(command);
        assert_eq!(j.decision, Some(Decision::Allow), "{command}");
    }
}

#[test]
fn every_program_a_read_only_rule_names_has_a_positive_list() {
    for rule in builtin_rules().iter().filter(|r| r.read_only) {
        for program in &rule.command[0] {
            assert!(readonly::known(program), "{program} in {}", rule.id);
        }
    }
}

#[test]
fn an_origin_says_its_layer_file_and_line() {
    let builtin = RuleOrigin {
        layer: "builtin".into(),
        file: None,
        line: 0,
    };
    assert_eq!(builtin.describe(), "built-in");
    let user = RuleOrigin {
        layer: "user".into(),
        file: Some("/home/a/.config/warden/config.toml".into()),
        line: 12,
    };
    assert_eq!(
        user.describe(),
        "user /home/a/.config/warden/config.toml:12"
    );
    let saved = RuleOrigin { line: 0, ..user };
    assert_eq!(saved.describe(), "user /home/a/.config/warden/config.toml");
}

#[test]
fn a_rule_on_an_escalation_judges_that_escalation_only() {
    let mut set = RuleSet {
        rules: builtin_rules(),
        ..RuleSet::default()
    };
    let mut net = rule("cargo-net", Decision::Allow, &[&["cargo"], &["add"]]);
    net.escalate = Some(crate::domain::EscalationKind::Network);
    set.rules.push(net);
    // An ordinary rule never decides an escalation, nor the reverse.
    set.rules
        .push(rule("cargo", Decision::Allow, &[&["cargo"]]));
    let j = set.judge_escalation("cargo add serde", crate::domain::EscalationKind::Network);
    assert_eq!(j.decision, Some(Decision::Allow));
    assert_eq!(set.ids(&j).as_deref(), Some("cargo-net"));
    let j = set.judge_escalation("cargo add serde", crate::domain::EscalationKind::Git);
    assert_eq!(j.decision, None);
    let j = set.judge_escalation("cargo publish", crate::domain::EscalationKind::Network);
    assert_eq!(j.decision, None);
    let j = set.judge_shell("cargo add serde");
    assert_eq!(set.ids(&j).as_deref(), Some("cargo"));
}

/// The reason for an uncertain command said "and deny rules are in force" whether or not any
/// was: it says so only when one is.
#[test]
fn an_uncertain_commands_reason_names_deny_rules_only_when_there_are_some() {
    let mut set = RuleSet {
        rules: builtin_rules(),
        ..RuleSet::default()
    };
    let j = set.judge_shell("HOME=. git status");
    let reason = set.reason(&j);
    assert!(reason.contains("cannot be judged for certain"), "{reason}");
    assert!(!reason.contains("deny rules"), "{reason}");
    set.rules
        .push(rule("no-push", Decision::Deny, &[&["git"], &["push"]]));
    let j = set.judge_shell("HOME=. git status");
    assert!(set.reason(&j).contains("and deny rules are in force"));
}
