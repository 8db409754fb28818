//! The argv of one simple command: builtins that make what runs uncertain, and wrappers that
//! run another command (unwrapped, the inner command judged on its own).

use super::{SimpleCommand, Split, Word, walk};

/// Builtins that run text as commands or change what a later command name runs.
const CHANGES_WHAT_RUNS: &[&str] = &[
    "eval",
    "source",
    ".",
    "alias",
    "trap",
    "enable",
    "hash",
    "shopt",
    "declare",
    "typeset",
    "local",
    "let",
    "readonly",
    "fc",
    "bind",
    "complete",
    "compgen",
    "mapfile",
    "readarray",
];

/// Builtins that assign to a variable named by an argument.
const ASSIGNS_BY_NAME: &[&str] = &[
    "export", "read", "printf", "unset", "getopts", "wait", "test", "[",
];

/// Shells whose `-c` string is bash syntax, parsed again.
const SHELLS: &[&str] = &["sh", "bash", "dash", "ash"];

/// Shells whose syntax is not bash's: what they run is uncertain.
const OTHER_SHELLS: &[&str] = &[
    "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "yash", "posh", "busybox",
];

/// Programs that run a command given in their arguments in ways not followed here (as
/// another user, repeatedly, in another namespace or under a tracer).
const RUNS_COMMANDS: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "runuser",
    "watch",
    "parallel",
    "chroot",
    "unshare",
    "nsenter",
    "setsid",
    "script",
    "flock",
    "strace",
    "ltrace",
    "gdb",
    "valgrind",
    "chrt",
    "ionice",
    "taskset",
    "systemd-run",
    "firejail",
    "bwrap",
    "proot",
    "fakeroot",
    "xvfb-run",
];

/// A variable that changes what a program reads or runs: one that picks programs or how they
/// are found, or the configuration, modules or home a program reads (`HOME`, `XDG_*`,
/// `PYTHONPATH`, `NODE_OPTIONS` …).
pub(super) fn picks_programs(name: &str) -> bool {
    // Where cargo writes its build: not what it reads or runs.
    if name == "CARGO_TARGET_DIR" {
        return false;
    }
    matches!(
        name,
        "PATH"
            | "BASH_ENV"
            | "ENV"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "PS4"
            | "PROMPT_COMMAND"
            | "IFS"
            | "CDPATH"
            | "GLOBIGNORE"
            | "EXECIGNORE"
            | "BASH_LOADABLES_PATH"
            | "PAGER"
            | "EDITOR"
            | "VISUAL"
            | "BROWSER"
            | "LESSOPEN"
            | "LESSCLOSE"
            | "SHELL"
            | "RUSTC"
            | "CC"
            | "CXX"
            | "MAKE"
            | "PYTHONSTARTUP"
            | "NODE_OPTIONS"
            | "PERL5OPT"
            | "RUBYOPT"
            | "JAVA_TOOL_OPTIONS"
            | "HOME"
            | "ZDOTDIR"
            | "INPUTRC"
            | "TMPDIR"
            | "POSIXLY_CORRECT"
            | "MAKEFLAGS"
            | "MFLAGS"
            | "CARGO_HOME"
            | "RUSTUP_HOME"
            | "RUSTFLAGS"
            | "RUSTC_WRAPPER"
            | "RUSTC_WORKSPACE_WRAPPER"
            | "RUSTDOCFLAGS"
            | "GOFLAGS"
            | "GOPATH"
            | "GOROOT"
            | "GOENV"
            | "GOTOOLCHAIN"
            | "JQ_COLORS"
            | "GREP_OPTIONS"
            | "RIPGREP_CONFIG_PATH"
            | "TAR_OPTIONS"
            | "MAGIC"
            | "TZDIR"
            | "LOCPATH"
            | "NLSPATH"
            | "GCONV_PATH"
            | "HOSTALIASES"
            | "SSH_ASKPASS"
            | "SUDO_ASKPASS"
            | "GNUPGHOME"
    ) || [
        "LD_",
        "DYLD_",
        "GIT_",
        "BASH_FUNC_",
        "XDG_",
        "PYTHON",
        "PERL5",
        "PERL_",
        "RUBY",
        "GEM_",
        "BUNDLE_",
        "NODE_",
        "NPM_CONFIG_",
        "npm_config_",
        "LESS",
        "CARGO_",
        "PIP_",
        "UV_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || [
            "_PAGER", "_EDITOR", "_COMMAND", "_WRAPPER", "_RUNNER", "_SHELL",
        ]
        .iter()
        .any(|s| name.ends_with(s))
}

fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

fn push(out: &mut Split, words: &[Word], wrapper: bool) {
    out.commands.push(SimpleCommand {
        words: words.to_vec(),
        wrapper,
    });
}

/// The simple command `words` (the program first): listed, and unwrapped when it runs another.
pub(super) fn argv(words: Vec<Word>, depth: usize, out: &mut Split) {
    let Some(first) = words.first() else {
        return;
    };
    if !first.literal {
        push(out, &words, false);
        out.uncertain.push(format!(
            "the program `{}` is known only when the command runs",
            first.text
        ));
        return;
    }
    let name = base(&first.text).to_owned();
    let args = &words[1..];
    if CHANGES_WHAT_RUNS.contains(&name.as_str()) {
        push(out, &words, false);
        out.uncertain.push(format!(
            "`{name}` runs text as commands or changes what a later command runs"
        ));
        return;
    }
    if ASSIGNS_BY_NAME.contains(&name.as_str()) {
        push(out, &words, false);
        for arg in args {
            let text = arg.text.as_str();
            let named = text.split('=').next().unwrap_or(text);
            if text.contains('[')
                || picks_programs(named)
                || (name == "export" && text.starts_with('-'))
            {
                out.uncertain.push(format!(
                    "`{name} {text}` may assign a variable that changes what runs (or evaluate a subscript)"
                ));
            }
        }
        return;
    }
    if SHELLS.contains(&name.as_str()) {
        return shell(&words, depth, out);
    }
    if RUNS_COMMANDS.contains(&name.as_str()) {
        push(out, &words, true);
        out.uncertain.push(format!(
            "`{name}` runs a command in a way that is not followed here"
        ));
        return;
    }
    if OTHER_SHELLS.contains(&name.as_str()) {
        push(out, &words, false);
        out.uncertain.push(format!(
            "`{name}` is a shell whose syntax is not parsed here"
        ));
        return;
    }
    let inner = match name.as_str() {
        "exec" => options(args, &["-c", "-l", "-cl", "-lc"], &["-a"], false),
        "command" => {
            if args
                .first()
                .is_some_and(|a| a.text == "-v" || a.text == "-V")
            {
                push(out, &words, false);
                return;
            }
            options(args, &["-p"], &[], false)
        }
        "builtin" | "nohup" => options(args, &[], &[], false),
        "time" => {
            time_output(args, out);
            options(
                args,
                &[
                    "-p",
                    "-v",
                    "-a",
                    "-q",
                    "--verbose",
                    "--portability",
                    "--append",
                    "--quiet",
                ],
                &["-f", "-o", "--format", "--output"],
                false,
            )
        }
        "nice" => nice(args),
        "timeout" => timeout(args),
        "env" => env(args, out),
        "xargs" => {
            // xargs(1) appends words read from standard input to its command: options
            // (`… | xargs find` with `-delete` read), operands and their count are unknown.
            out.uncertain.push(
                "`xargs`: the arguments it adds come from standard input, unknown here".to_owned(),
            );
            xargs(args)
        }
        "stdbuf" => options(args, &[], &["-i", "-o", "-e"], true),
        "find" => {
            push(out, &words, false);
            return find(args, depth, out);
        }
        _ => {
            push(out, &words, false);
            return;
        }
    };
    match inner {
        Inner::Runs(start) => {
            push(out, &words, true);
            match args.get(start..) {
                Some(rest) if !rest.is_empty() => argv(rest.to_vec(), depth, out),
                _ if name == "xargs" => argv(vec![Word::literal("echo")], depth, out),
                _ => {}
            }
        }
        Inner::Nothing => push(out, &words, false),
        Inner::Unknown(why) => {
            push(out, &words, true);
            out.uncertain.push(format!("`{name}`: {why}"));
        }
    }
}

/// The file `time -o FILE` (`--output`) writes its report to: a write, as `> FILE` is.
/// Other spellings (`-oFILE`, `--out=FILE`, clusters) are options the wrapper parse does
/// not know, so the command is uncertain anyway.
fn time_output(args: &[Word], out: &mut Split) {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        if !text.starts_with('-') || text == "--" {
            return;
        }
        if let Some(file) = text.strip_prefix("--output=") {
            out.writes.push(file.to_owned());
        } else if matches!(text, "-o" | "--output") {
            if let Some(file) = args.get(at + 1) {
                out.writes.push(file.text.clone());
            }
            at += 1;
        } else if matches!(text, "-f" | "--format") {
            at += 1;
        }
        at += 1;
    }
}

/// Where a wrapper's command starts among its arguments.
enum Inner {
    /// At this index (past the end: no command).
    Runs(usize),
    /// The wrapper runs no command (`env` alone prints the environment).
    Nothing,
    /// An option it does not know, or a word that is not literal.
    Unknown(String),
}

/// Skip `flags` (no value) and `valued` options (value in the next word, or joined with `=`;
/// when `joined`, also joined directly: `-oL`).
fn options(args: &[Word], flags: &[&str], valued: &[&str], joined: bool) -> Inner {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        if !arg.literal {
            return Inner::Unknown(format!("the option `{}` is not literal", arg.text));
        }
        let text = arg.text.as_str();
        if text == "--" {
            return Inner::Runs(at + 1);
        }
        if !text.starts_with('-') || text == "-" {
            return Inner::Runs(at);
        }
        if flags.contains(&text) {
            at += 1;
        } else if valued.contains(&text) {
            at += 2;
        } else if valued.iter().any(|v| {
            text.starts_with(&format!("{v}="))
                || (joined && text.starts_with(v) && text.len() > v.len())
        }) {
            at += 1;
        } else {
            return Inner::Unknown(format!("the option `{text}` is not understood here"));
        }
    }
    Inner::Runs(at)
}

fn nice(args: &[Word]) -> Inner {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        if !arg.literal {
            return Inner::Unknown(format!("the option `{text}` is not literal"));
        }
        if text == "-n" || text == "--adjustment" {
            at += 2;
        } else if text.starts_with("--adjustment=")
            || (text.starts_with("-n") && text.len() > 2)
            || (text.len() > 1
                && text.starts_with('-')
                && text[1..].chars().all(|c| c.is_ascii_digit()))
        {
            at += 1;
        } else if text == "--" {
            return Inner::Runs(at + 1);
        } else if text.starts_with('-') {
            return Inner::Unknown(format!("the option `{text}` is not understood here"));
        } else {
            return Inner::Runs(at);
        }
    }
    if at == 0 {
        Inner::Nothing
    } else {
        Inner::Runs(at)
    }
}

fn timeout(args: &[Word]) -> Inner {
    match options(
        args,
        &["--preserve-status", "--foreground", "-v", "--verbose"],
        &["-s", "--signal", "-k", "--kill-after"],
        true,
    ) {
        // The duration, then the command.
        Inner::Runs(at) if at < args.len() => Inner::Runs(at + 1),
        Inner::Runs(_) => Inner::Nothing,
        other => other,
    }
}

fn env(args: &[Word], out: &mut Split) -> Inner {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        if !arg.literal {
            return Inner::Unknown(format!("the word `{text}` is not literal"));
        }
        match text {
            "-i" | "-" | "--ignore-environment" | "-0" | "--null" => at += 1,
            "-u" | "--unset" | "-C" | "--chdir" => at += 2,
            "--" => {
                at += 1;
                break;
            }
            _ if text.starts_with("--unset=") || text.starts_with("--chdir=") => at += 1,
            _ if text.starts_with('-') => {
                return Inner::Unknown(format!("the option `{text}` is not understood here"));
            }
            _ => break,
        }
    }
    while let Some(arg) = args.get(at) {
        let Some((name, _)) = arg.text.split_once('=') else {
            break;
        };
        if picks_programs(name) {
            out.uncertain.push(format!(
                "`env {name}=…` sets a variable that changes what runs"
            ));
        }
        at += 1;
    }
    if at < args.len() {
        Inner::Runs(at)
    } else {
        Inner::Nothing
    }
}

fn xargs(args: &[Word]) -> Inner {
    let flags = [
        "-0",
        "-r",
        "-t",
        "-p",
        "-x",
        "-o",
        "--null",
        "--no-run-if-empty",
        "--verbose",
        "--interactive",
        "--exit",
        "--open-tty",
    ];
    let valued = [
        "-a",
        "-d",
        "-E",
        "-I",
        "-L",
        "-n",
        "-P",
        "-s",
        "--arg-file",
        "--delimiter",
        "--eof",
        "--replace",
        "--max-lines",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ];
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        if !arg.literal {
            return Inner::Unknown(format!("the option `{text}` is not literal"));
        }
        if text == "--" {
            return Inner::Runs(at + 1);
        }
        if !text.starts_with('-') {
            return Inner::Runs(at);
        }
        if flags.contains(&text) {
            at += 1;
        } else if valued.contains(&text) {
            at += 2;
        } else if valued
            .iter()
            .any(|v| text.starts_with(&format!("{v}=")) || (v.len() == 2 && text.starts_with(v)))
            || ["-e", "-i", "-l"].iter().any(|v| text.starts_with(v))
        {
            at += 1;
        } else {
            return Inner::Unknown(format!("the option `{text}` is not understood here"));
        }
    }
    Inner::Runs(at)
}

/// Where the command of a `find -exec` that starts at `start` ends: its `;`, or a `+` right
/// after `{}` (find(1): "the command line is built … the `{}` must appear by itself, and
/// only the `+` immediately after it ends the command"; any other `+` is an argument).
pub(crate) fn exec_end(args: &[Word], start: usize) -> Option<usize> {
    let mut at = start;
    while let Some(arg) = args.get(at) {
        if arg.literal && arg.text == ";" {
            return Some(at);
        }
        if arg.literal
            && arg.text == "+"
            && at > start
            && args
                .get(at - 1)
                .is_some_and(|w| w.literal && w.text == "{}")
        {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// `find`'s `-exec`, `-execdir`, `-ok`, `-okdir` commands, each up to its `;` or to a `+`
/// right after `{}`.
fn find(args: &[Word], depth: usize, out: &mut Split) {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        at += 1;
        if !arg.literal {
            continue;
        }
        if matches!(arg.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = at;
            at = exec_end(args, start).unwrap_or(args.len());
            let inner = args.get(start..at).unwrap_or_default();
            if inner.first().is_some_and(|w| w.text.contains("{}")) {
                out.uncertain
                    .push("`find -exec {}`: the program is a found file".to_owned());
            } else if !inner.is_empty() {
                argv(inner.to_vec(), depth, out);
            }
        }
    }
}

/// `sh`/`bash` …: with `-c`, its string parsed again; otherwise it reads a script or its
/// standard input, which is uncertain.
fn shell(words: &[Word], depth: usize, out: &mut Split) {
    let name = base(&words[0].text).to_owned();
    let mut with_c = false;
    let mut at = 1;
    let mut why = None;
    while let Some(arg) = words.get(at) {
        let text = arg.text.as_str();
        if !arg.literal {
            why = Some(format!("the word `{text}` is not literal"));
            break;
        }
        if text == "--" || text == "-" {
            at += 1;
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            match long {
                "login" | "noprofile" | "norc" | "posix" | "noediting" | "verbose" => at += 1,
                "rcfile" | "init-file" => at += 2,
                _ => {
                    why = Some(format!("the option `{text}` is not understood here"));
                    break;
                }
            }
            continue;
        }
        if matches!(text, "-o" | "+o" | "-O" | "+O") {
            at += 2;
            continue;
        }
        let Some(letters) = text.strip_prefix('-').or_else(|| text.strip_prefix('+')) else {
            break;
        };
        if letters.contains(['i', 's']) {
            why = Some(format!("`{name} {text}` reads commands from elsewhere"));
            break;
        }
        with_c |= letters.contains('c');
        at += 1;
    }
    if why.is_none() {
        match words.get(at) {
            Some(script) if with_c && script.literal => {
                push(out, words, true);
                walk::program(&script.text, depth + 1, out);
                return;
            }
            Some(script) if with_c => {
                why = Some(format!(
                    "the command string `{}` is not literal",
                    script.text
                ));
            }
            Some(script) => why = Some(format!("runs the script `{}`", script.text)),
            None => why = Some("reads commands from its standard input".to_owned()),
        }
    }
    push(out, words, true);
    out.uncertain.push(format!(
        "`{name}`: {}",
        why.unwrap_or_else(|| "cannot tell what it runs".to_owned())
    ));
}
