//! What the built-in rules let run unasked is read-only by construction, and a deny rule is as
//! wide as it looks, through the real binary: under `--mode ask` with nobody to answer
//! (`warden run`, stdin closed), commands that used to run unasked and wrote, deleted or ran
//! code now ask (the file is not written, the marker is absent, the victim is still there);
//! under `full-auto`, a managed deny on `git push` holds through git's global options (the
//! remote gets no ref).

use std::path::Path;
use std::process::Command;

use crate::rules::{asked, ran, run_commands};
use crate::shell::OPENAI;
use crate::support::{TestEnv, stderr};

fn skip(test: &str) -> bool {
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP {test}: the sandbox cannot be built here: {missing}");
        return true;
    }
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("SKIP {test}: git not installed");
        return true;
    }
    false
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .env("HOME", dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

/// Each command, once allowed by a built-in rule, and what it would leave behind.
const HARMFUL: &[(&str, &str)] = &[
    ("sort -uo written-joined f.txt", "written-joined"),
    ("sort --ou=written-abbrev f.txt", "written-abbrev"),
    ("/usr/bin/sort -r --outp written-path f.txt", "written-path"),
    ("uniq f.txt written-operand", "written-operand"),
    ("tree -o written-tree .", "written-tree"),
    ("/usr/bin/time -o written-time ls", "written-time"),
    (
        "find . -name f.txt -exec time -o + sh -c 'touch ran-plus' {} +",
        "ran-plus",
    ),
    ("HOME=. git diff", "ran-home"),
    ("export HOME=.; git diff", "ran-export"),
    ("env XDG_CONFIG_HOME=xdg git diff", "ran-xdg"),
];

#[test]
fn commands_the_defaults_once_allowed_ask_and_leave_nothing_behind() {
    let test = "commands_the_defaults_once_allowed_ask_and_leave_nothing_behind";
    if skip(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(OPENAI);
    let ws = env.workspace();
    env.write("f.txt", "b\na\nb\n");
    env.write("victim", "keep me\n");
    // A repository whose work tree differs from its index, and configuration the command
    // could point git at: each runs an external diff that leaves a marker.
    git(&ws, &["init", "-q"]);
    git(&ws, &["add", "f.txt"]);
    git(&ws, &["commit", "-q", "-m", "one"]);
    env.write("f.txt", "changed\n");
    env.write(
        ".gitconfig",
        "[diff]\n\texternal = sh -c 'touch ran-home ran-export'\n",
    );
    env.write(
        "xdg/git/config",
        "[diff]\n\texternal = sh -c 'touch ran-xdg'\n",
    );
    let mut commands: Vec<&str> = HARMFUL.iter().map(|(c, _)| *c).collect();
    // Options through standard input: `xargs` appends `-delete` to `find`.
    commands.push("printf '%s\\n' -delete | xargs find . -name victim");
    let (messages, _, err) = run_commands(&env, &[], &commands);
    for (message, command) in messages.iter().zip(&commands) {
        assert!(asked(message), "{command}: {message}\n{err}");
    }
    for (command, left) in HARMFUL {
        assert!(!ws.join(left).exists(), "{command} left {left}");
    }
    assert!(ws.join("victim").exists(), "xargs find -delete ran");
    // What only reads still runs unasked.
    let (messages, _, _) = run_commands(
        &env,
        &[],
        &[
            "sort -u f.txt",
            "git --no-pager diff --stat",
            "uniq -c f.txt",
        ],
    );
    for m in &messages {
        assert!(ran(m), "{m}");
    }
}

#[test]
fn a_managed_deny_on_git_push_holds_through_global_options() {
    let test = "a_managed_deny_on_git_push_holds_through_global_options";
    if skip(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(OPENAI);
    env.managed_config(
        "[[rules]]\nid = \"no-push\"\ncommand = [\"git\", \"push\"]\ndecision = \"deny\"\nwhy = \"pushes go through review\"\nexamples = [\"git push origin main\"]\n",
    );
    let ws = env.workspace();
    git(&ws, &["init", "-q"]);
    env.write("a.txt", "a\n");
    git(&ws, &["add", "a.txt"]);
    git(&ws, &["commit", "-q", "-m", "one"]);
    git(&ws, &["init", "-q", "--bare", "remote.git"]);
    git(&ws, &["remote", "add", "origin", "remote.git"]);
    let commands = [
        "git -C . push origin main",
        "git --no-pager push origin main",
        "git -c x.y=z push origin main",
        "git --git-dir=.git push origin main",
        "git --frobnicate push origin main",
    ];
    let (messages, _, err) = run_commands(&env, &["--mode", "full-auto"], &commands);
    for (message, command) in messages.iter().zip(&commands) {
        assert!(
            message.contains("denied by rule:no-push"),
            "{command}: {message}\n{err}"
        );
    }
    assert!(
        messages[4].contains("`--frobnicate`"),
        "the refusal says which option: {}",
        messages[4]
    );
    let refs = std::fs::read_dir(ws.join("remote.git/refs/heads"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(refs, 0, "a push reached the remote");
}
