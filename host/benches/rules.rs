//! The `[[rules]]` verdict on a `shell` command: the split (parse, wrappers, substitutions)
//! and every simple command judged against the built-in rules plus two configured ones. A
//! typical command, a compound one, one with a nested `bash -c` and substitutions, and the
//! split alone for the typical command.
//!
//! `cargo bench --profile dev -p warden --bench rules -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use warden::domain::rules::{Decision, Rule, RuleOrigin, RuleSet, builtin_rules};
use warden::domain::shell_split::split;

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
        escalate: None,
        workspace: None,
        origin: RuleOrigin {
            layer: "user".to_owned(),
            file: None,
            line: 1,
        },
    }
}

fn rules(c: &mut Criterion) {
    let mut all = vec![
        rule("no-push", Decision::Deny, &["git", "push"]),
        rule("ask-publish", Decision::Ask, &["npm", "publish"]),
    ];
    all.extend(builtin_rules());
    let set = RuleSet {
        rules: all,
        ..RuleSet::default()
    };
    let cases = [
        ("typical", "cargo test -p warden"),
        (
            "compound",
            "cd src && cargo test 2>&1 | tee out; git status",
        ),
        (
            "nested",
            "bash -lc 'git diff $(git rev-parse HEAD~1) | grep -c fn' && env A=1 timeout 5 ls",
        ),
    ];
    for (name, command) in cases {
        c.bench_function(&format!("rules/judge_{name}"), |b| {
            b.iter(|| set.judge_shell(black_box(command)));
        });
    }
    c.bench_function("rules/split_typical", |b| {
        b.iter(|| split(black_box("cargo test -p warden")));
    });
}

criterion_group!(benches, rules);
criterion_main!(benches);
