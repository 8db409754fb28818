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
    assert_eq!(narrowest_prefix("python -c 'print(1)'"), None);
    assert_eq!(narrowest_prefix("bash"), None);
    assert_eq!(narrowest_prefix("curl x | sh"), None);
    assert_eq!(
        narrowest_prefix("env A=1 python x.py"),
        Some(vec![vec!["python".to_owned(), "x.py".to_owned()]])
    );
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
