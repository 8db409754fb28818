//! What a `git` escalation may run: `git` alone. Every simple command of the parse must be
//! `git`, named as such (not by a path, not through a wrapper), with nothing uncertain in the
//! text and no output redirection; and none of git's own ways to run another program or to
//! read other configuration is used (`-c`, `--config-env`, `--exec-path`, `--git-dir`,
//! `--work-tree`; `rebase --exec`, `--upload-pack`, `--receive-pack`, `submodule foreach`,
//! `bisect run`, `difftool`, `mergetool`, `filter-branch`, `help` (a browser or man viewer) …). Anything else is refused before
//! it runs, with the reason.

use super::shell_split::{SimpleCommand, split};

/// Global options of git that read other configuration or run other programs.
const REFUSED_GLOBAL: &[&str] = &[
    "--config-env",
    "--exec-path",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--list-cmds",
];

/// Global options of git whose value is the next word.
const GLOBAL_WITH_VALUE: &[&str] = &["-C"];

/// Subcommands whose purpose is to run other programs.
const REFUSED_SUBCOMMANDS: &[&str] = &[
    "difftool",
    "mergetool",
    "help",
    "filter-branch",
    "send-email",
    "instaweb",
    "daemon",
    "web--browse",
    "upload-pack",
    "receive-pack",
    "remote-ext",
    "remote-fd",
];

/// Options (any subcommand) naming a program git would run.
const REFUSED_OPTIONS: &[&str] = &["--exec", "--upload-pack", "--receive-pack"];

/// How every refusal ends.
const ASK_APART: &str = "nothing ran. Run anything else as a call of its own (in the default sandbox, or escalated as `unsandboxed` if it really must)";

/// `Ok` when `command` runs `git` alone, in a way that runs no other program; otherwise the
/// reason it is refused under a `git` escalation.
pub fn git_only(command: &str) -> Result<(), String> {
    let parsed = split(command);
    if let Some(why) = parsed.uncertain.first() {
        return Err(format!(
            "a `git` escalation runs only `git`, and what this command runs cannot be known for certain ({why}); {ASK_APART}"
        ));
    }
    if parsed.commands.is_empty() {
        return Err(format!(
            "a `git` escalation runs only `git`, and this command runs no `git`; {ASK_APART}"
        ));
    }
    parsed.commands.iter().try_for_each(one)?;
    match parsed.writes.first() {
        Some(file) => Err(format!(
            "a `git` escalation runs only `git`, and this command also writes `{file}` through the shell; {ASK_APART}"
        )),
        None => Ok(()),
    }
}

/// Subcommands that write the repository (`.git`), which the default sandbox leaves read-only.
const WRITES_REPOSITORY: &[&str] = &[
    "add",
    "am",
    "checkout",
    "cherry-pick",
    "commit",
    "merge",
    "mv",
    "rebase",
    "reset",
    "revert",
    "rm",
    "stash",
    "switch",
];

/// The first subcommand of `command` that writes the repository, when `command` runs git
/// alone (as [`git_only`] allows) and every one of its simple commands is such a write: the
/// command needs the `git` escalation to do anything. `None` otherwise (a read such as
/// `git log`, or anything besides git).
pub fn writes_repository(command: &str) -> Option<String> {
    git_only(command).ok()?;
    let parsed = split(command);
    let mut first = None;
    for simple in &parsed.commands {
        let sub = subcommand(simple).filter(|s| WRITES_REPOSITORY.contains(s))?;
        first.get_or_insert_with(|| sub.to_owned());
    }
    first
}

/// The subcommand of a `git` simple command (global options skipped).
fn subcommand(command: &SimpleCommand) -> Option<&str> {
    let mut words = command.words.iter().skip(1);
    loop {
        let text = words.next()?.text.as_str();
        if !text.starts_with('-') {
            return Some(text);
        }
        if GLOBAL_WITH_VALUE.contains(&text) {
            words.next();
        }
    }
}

/// One simple command: `git`, with none of the refused options or subcommands.
fn one(command: &SimpleCommand) -> Result<(), String> {
    let shown = command.display();
    if command.program() != "git" || command.wrapper {
        return Err(format!(
            "a `git` escalation runs only `git`, and `{shown}` is not `git`; {ASK_APART}"
        ));
    }
    let refuse = |what: &str| {
        Err(format!(
            "a `git` escalation runs `git` without {what} (in `{shown}`); {ASK_APART}"
        ))
    };
    let mut words = command.words.iter().skip(1);
    let subcommand = loop {
        let Some(word) = words.next() else {
            return Ok(());
        };
        if !word.literal {
            return refuse("a word that expands before the subcommand");
        }
        let text = word.text.as_str();
        if !text.starts_with('-') {
            break text;
        }
        let name = text.split_once('=').map_or(text, |(n, _)| n);
        if text.starts_with("-c") || REFUSED_GLOBAL.contains(&name) {
            return refuse(&format!("the global option `{name}`"));
        }
        if GLOBAL_WITH_VALUE.contains(&text) {
            words.next();
        }
    };
    if REFUSED_SUBCOMMANDS.contains(&subcommand) {
        return refuse(&format!("`{subcommand}`, which runs other programs"));
    }
    let rest: Vec<&str> = words.map(|w| w.text.as_str()).collect();
    let first = rest.first().copied().unwrap_or_default();
    if (subcommand == "submodule" && rest.contains(&"foreach"))
        || (subcommand == "bisect" && first == "run")
    {
        return refuse(&format!(
            "`{subcommand} {first}`, which runs other programs"
        ));
    }
    for word in &rest {
        let name = word.split_once('=').map_or(*word, |(n, _)| n);
        let exec_short = subcommand == "rebase"
            && word.starts_with('-')
            && !word.starts_with("--")
            && word.contains('x');
        let upload_short = matches!(subcommand, "clone" | "ls-remote") && word.starts_with("-u");
        if REFUSED_OPTIONS.contains(&name) || exec_short || upload_short {
            return refuse(&format!("`{word}`, which runs another program"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_commands_that_all_write_the_repository_need_the_escalation() {
        assert_eq!(
            writes_repository("git add a.txt && git commit -qm 'x'").as_deref(),
            Some("add")
        );
        assert_eq!(
            writes_repository("git -C sub commit -m x").as_deref(),
            Some("commit")
        );
        for not in [
            "git log --oneline",
            "git add a && git log",
            "git commit -m x && make",
            "git commit -m \"$(id)\"",
            "",
        ] {
            assert_eq!(writes_repository(not), None, "{not}");
        }
    }

    #[test]
    fn git_alone_passes() {
        for ok in [
            "git add a.txt && git commit -qm 'the change'",
            "git -C sub status; git stash push -m x",
            "git checkout -b topic && git rebase main",
            "git commit -m \"$MSG\"",
            "git status > /dev/null",
            "git --no-pager log -1",
            "git rebase -i HEAD~2",
        ] {
            assert_eq!(git_only(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn anything_else_is_refused_with_the_command_named() {
        for (bad, names) in [
            (
                "git add . && echo hi > .git/config",
                "`echo hi` is not `git`",
            ),
            (
                "git log > .git/info/attributes",
                "writes `.git/info/attributes`",
            ),
            ("mv .git .git-old", "`mv .git .git-old` is not `git`"),
            ("git status; printf x > f", "printf"),
            ("git commit -m \"$(cat msg)\"", "`cat msg` is not `git`"),
            ("/usr/bin/git status", "is not `git`"),
            ("env git status", "is not `git`"),
            ("GIT_DIR=/tmp/x git status", "cannot be known"),
            ("$GIT status", "cannot be known"),
            ("git -c core.fsmonitor=x status", "`-c`"),
            ("git -ccore.pager=x log", "`-ccore.pager`"),
            ("git --git-dir=/tmp/x status", "`--git-dir`"),
            ("git --exec-path=. status", "`--exec-path`"),
            ("git rebase -x 'touch m' HEAD~1", "`-x`"),
            ("git rebase --exec=true HEAD~1", "`--exec=true`"),
            ("git rebase -ix true HEAD~1", "`-ix`"),
            ("git fetch --upload-pack='sh x' origin", "--upload-pack"),
            ("git submodule foreach touch m", "`submodule foreach`"),
            ("git bisect run make", "`bisect run`"),
            ("git difftool", "`difftool`"),
            ("git help -w config", "`help`"),
            ("git $SUB", "expands"),
            ("", "runs no `git`"),
        ] {
            let err = git_only(bad).err().unwrap_or_default();
            assert!(err.contains(names), "{bad}: {err}");
            assert!(err.contains("nothing ran"), "{bad}: {err}");
        }
    }
}
