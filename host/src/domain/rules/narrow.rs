//! The rule an "always" answer saves: the narrowest argv prefix that covers the command.

use crate::domain::shell_split::split;

/// Programs that run whatever their arguments say: never saved bare.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python3", "node", "deno", "bun", "ruby",
    "perl", "php", "env", "xargs", "sudo", "exec", "eval", "nohup", "timeout", "nice", "command",
    "builtin", "time", "stdbuf", "npx", "uv", "pipx",
];

/// Programs whose first argument is a subcommand (`cargo test`, `git diff`).
const WITH_SUBCOMMAND: &[&str] = &[
    "cargo", "git", "npm", "pnpm", "yarn", "go", "make", "docker", "kubectl", "pip", "pip3",
    "rustup", "gh", "just", "poetry", "uv", "bundle", "rake", "mvn", "gradle", "dotnet", "swift",
];

/// The argv prefixes (one per simple command) that an "always" for `command` saves, or
/// `None` when it cannot be covered by prefixes: something in it is uncertain, or a command
/// would need a bare interpreter or a word that is not literal.
pub fn narrowest_prefix(command: &str) -> Option<Vec<Vec<String>>> {
    let split = split(command);
    if !split.uncertain.is_empty() || split.commands.is_empty() {
        return None;
    }
    let mut out: Vec<Vec<String>> = Vec::new();
    for simple in split.commands.iter().filter(|c| !c.wrapper) {
        let first = simple.words.first()?;
        if !first.literal {
            return None;
        }
        let mut prefix = vec![first.text.clone()];
        let program = first.text.rsplit('/').next().unwrap_or(&first.text);
        if INTERPRETERS.contains(&program) || WITH_SUBCOMMAND.contains(&program) {
            let second = simple
                .words
                .get(1)
                .filter(|w| w.literal && !w.text.starts_with('-'))?;
            // `python script.py`, `cargo test`: the program and its first word.
            prefix.push(second.text.clone());
        }
        if !out.contains(&prefix) {
            out.push(prefix);
        }
    }
    Some(out)
}
