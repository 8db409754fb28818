//! `warden doctor` and `warden config show` on `[[hooks]]`: each hook with its event,
//! matcher, command, grants, failure policy, mode, layer and file; whether it waits for
//! trust; and whether the program its command starts can be found.

use std::path::Path;

use serde_json::Value;

use super::doctor::Report;
use crate::config::{CommandHookEntry, Loaded};
use crate::domain::escape::escape;

/// One line for a hook, from its JSON form (`config show --json`'s `hooks`).
pub(crate) fn hook_line(h: &Value) -> String {
    let text = |key: &str| h[key].as_str().unwrap_or_default().to_owned();
    let list = |key: &str| {
        h[key]
            .as_array()
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default()
    };
    let matcher = h["matcher"]
        .as_str()
        .map(|m| format!(" matcher {m:?}"))
        .unwrap_or_default();
    let hosts = match list("allowed_hosts") {
        hosts if hosts.is_empty() => "no network".to_owned(),
        hosts => format!("hosts {hosts}"),
    };
    let env = match list("env") {
        env if env.is_empty() => String::new(),
        env => format!(", env {env}"),
    };
    let file = h["declared_in"]
        .as_str()
        .map(|f| format!(" {f}"))
        .unwrap_or_default();
    format!(
        "hook {} ({}{matcher}) `{}`: fs {}, {hosts}{env}, timeout {} s, on_error {}, mode {}  [{}]{file}",
        text("name"),
        text("event"),
        escape(&text("command")),
        text("fs"),
        h["timeout_s"],
        text("on_error"),
        text("mode"),
        text("origin"),
    )
}

/// Every hook: listed, a project's said to wait for trust, each one's program looked for.
pub(super) fn check_hooks(report: &mut Report, loaded: &Loaded, root: &Path, untrusted: bool) {
    for hook in &loaded.config.hooks {
        let value = serde_json::to_value(hook).unwrap_or(Value::Null);
        let line = hook_line(&value);
        if untrusted && hook.origin == "project" {
            report.info(&format!("{line}: waiting for warden trust"));
            continue;
        }
        match missing_program(hook, root) {
            Some(program) => report.fail(&format!(
                "{line}: its program `{}` is not found on PATH",
                escape(&program)
            )),
            None => report.ok(&line),
        }
    }
}

/// The program a hook's command starts, when it can be read for certain and is not found
/// (on `PATH`, or as a path under the workspace root the hook runs in).
fn missing_program(hook: &CommandHookEntry, root: &Path) -> Option<String> {
    let split = crate::domain::shell_split::split(&hook.command);
    let first = split.commands.first()?.words.first()?;
    if !first.literal || first.text.is_empty() {
        return None;
    }
    let program = first.text.clone();
    if program.contains('/') {
        return (!root.join(&program).exists()).then_some(program);
    }
    // Shell builtins a hook may start with.
    if matches!(
        program.as_str(),
        "exit" | "echo" | "true" | "false" | "cd" | "test" | "["
    ) {
        return None;
    }
    let path = std::env::var_os("PATH")?;
    let found = std::env::split_paths(&path).any(|dir| dir.join(&program).is_file());
    (!found).then_some(program)
}
