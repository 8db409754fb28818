//! Reading hooks written for Claude Code or Codex — a `settings.json` / `settings.local.json`,
//! a plugin's `hooks/hooks.json`, Codex's `hooks.json` or the `[hooks]` tables of its
//! `config.toml` — as `[[hooks]]` entries, with what could not be carried over and why.
//!
//! Both hosts write the same tree: event → matcher groups (`matcher`, `hooks`) → handlers
//! (`type`, `command`, `timeout`, …).

use serde_json::Value;

use crate::domain::hook_event::HookEvent;

/// One hook found, as a `[[hooks]]` entry would carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedHook {
    /// The event.
    pub event: HookEvent,
    /// Its group's `matcher` (absent, empty or `*`: every tool).
    pub matcher: Option<String>,
    /// The command line.
    pub command: String,
    /// Its `timeout`, in seconds.
    pub timeout: Option<u64>,
}

/// What a file held: the hooks warden runs, and a line for each thing it does not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Imported {
    /// The hooks, in file order.
    pub hooks: Vec<ImportedHook>,
    /// What was left out, each with why.
    pub skipped: Vec<String>,
    /// What of an imported hook was not carried over (a field, a matcher warden does not use).
    pub notes: Vec<String>,
}

/// Read `text`, the contents of `file_name` (`.toml`: Codex's `config.toml`; else JSON).
pub fn import(file_name: &str, text: &str) -> Result<Imported, String> {
    let root: Value = if file_name.ends_with(".toml") {
        let table: toml::Table = toml::from_str(text).map_err(|e| format!("not TOML: {e}"))?;
        serde_json::to_value(table).map_err(|e| e.to_string())?
    } else {
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?
    };
    let Some(hooks) = root.get("hooks") else {
        return Err("no `hooks` table: nothing to import".into());
    };
    let Value::Object(events) = hooks else {
        return Err("`hooks` is not a table of events".into());
    };
    let mut out = Imported::default();
    // Claude Code's switch for every hook of the file: what is off there stays off.
    if root.get("disableAllHooks") == Some(&Value::Bool(true)) {
        out.skipped.push(
            "`disableAllHooks` is true in this file: its hooks are off there, so none was imported"
                .into(),
        );
        return Ok(out);
    }
    for (event_name, groups) in events {
        // Codex keeps per-hook trust and enablement there; it is not an event.
        if event_name == "state" {
            continue;
        }
        let Ok(event) = event_name.parse::<HookEvent>() else {
            out.skipped.push(format!(
                "{event_name}: warden has no such event (it runs {})",
                HookEvent::ALL.map(HookEvent::name).join(", ")
            ));
            continue;
        };
        let Value::Array(groups) = groups else {
            return Err(format!(
                "`hooks.{event_name}` is not a list of matcher groups"
            ));
        };
        for group in groups {
            read_group(event, group, &mut out)?;
        }
    }
    Ok(out)
}

fn read_group(event: HookEvent, group: &Value, out: &mut Imported) -> Result<(), String> {
    let matcher = match group.get("matcher") {
        None | Some(Value::Null) => None,
        Some(Value::String(m)) if m.trim().is_empty() || m.trim() == "*" => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(other) => return Err(format!("{event}: `matcher` is {other}, not a string")),
    };
    if let Some(m) = &matcher
        && let Err(why) = crate::domain::tool_matcher::ToolMatcher::parse(m)
    {
        out.skipped.push(format!(
            "{event} matcher {m:?}: {why}; its hooks were left out"
        ));
        return Ok(());
    }
    let Some(Value::Array(handlers)) = group.get("hooks") else {
        return Err(format!("{event}: a matcher group without a `hooks` list"));
    };
    for handler in handlers {
        let kind = handler["type"].as_str().unwrap_or("command");
        if kind != "command" {
            out.skipped.push(format!(
                "{event}: a `{kind}` hook: warden runs command hooks only (write it as a wasm interceptor)"
            ));
            continue;
        }
        let Some(command) = handler["command"].as_str().filter(|c| !c.trim().is_empty()) else {
            out.skipped
                .push(format!("{event}: a command hook without a `command`"));
            continue;
        };
        for key in [
            "async",
            "once",
            "statusMessage",
            "commandWindows",
            "command_windows",
        ] {
            if handler.get(key).is_some_and(|v| !v.is_null()) {
                out.notes.push(format!(
                    "{event} `{command}`: `{key}` is not carried over (warden runs every hook in the chain, in order)"
                ));
            }
        }
        // Tools, `SessionStart`'s source, `PreCompact`'s trigger, `SessionEnd`'s reason and
        // `Notification`'s type are matched; these events have nothing to match.
        if matcher.is_some()
            && matches!(
                event,
                HookEvent::UserPromptSubmit | HookEvent::Stop | HookEvent::SubagentStop
            )
        {
            out.notes.push(format!(
                "{event} `{command}`: its matcher is not used at {event} (it runs at every {event})"
            ));
        }
        out.hooks.push(ImportedHook {
            event,
            matcher: matcher.clone(),
            command: command.to_owned(),
            // Codex also spells it `timeoutSec`.
            timeout: handler["timeout"]
                .as_u64()
                .or_else(|| handler["timeoutSec"].as_u64()),
        });
    }
    Ok(())
}

/// The variables a plugin's hooks name their own folder by (Claude Code's, Codex's).
const PLUGIN_ROOT_VARS: [&str; 2] = ["CLAUDE_PLUGIN_ROOT", "PLUGIN_ROOT"];

/// Where the plugin a hooks file belongs to lies, for its `${CLAUDE_PLUGIN_ROOT}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginRoot {
    /// In the workspace, at this path relative to its root (`/`-separated, no `..`).
    Workspace(String),
    /// Outside it, at this absolute path.
    Outside(String),
}

/// Write the plugin's folder in place of `${CLAUDE_PLUGIN_ROOT}` (and Codex's
/// `${PLUGIN_ROOT}`), which warden does not set, in each hook's command: under
/// `$CLAUDE_PROJECT_DIR` for a plugin in the workspace (so a project's trust covers its
/// scripts), else as the absolute path. A hook whose plugin path would need quoting, or that
/// names the plugin's data folder, is left out with why.
pub fn replace_plugin_root(found: &mut Imported, root: &PluginRoot) {
    let (quoted, bare) = match root {
        PluginRoot::Workspace(rel) if rel.is_empty() => (
            "\"${CLAUDE_PROJECT_DIR}\"".to_owned(),
            "${CLAUDE_PROJECT_DIR}".to_owned(),
        ),
        PluginRoot::Workspace(rel) => (
            format!("\"${{CLAUDE_PROJECT_DIR}}\"/{rel}"),
            format!("${{CLAUDE_PROJECT_DIR}}/{rel}"),
        ),
        PluginRoot::Outside(path) => (path.clone(), path.clone()),
    };
    let plain = |text: &str| {
        text.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+@".contains(c))
    };
    let needs_quoting = match root {
        PluginRoot::Workspace(rel) => !plain(rel),
        PluginRoot::Outside(path) => !plain(path),
    };
    let mut kept = Vec::with_capacity(found.hooks.len());
    for mut hook in std::mem::take(&mut found.hooks) {
        let names_root = PLUGIN_ROOT_VARS.iter().any(|var| {
            hook.command.contains(&format!("${var}"))
                || hook.command.contains(&format!("${{{var}}}"))
        });
        if hook.command.contains("CLAUDE_PLUGIN_DATA")
            || hook.command.contains("$PLUGIN_DATA")
            || hook.command.contains("${PLUGIN_DATA}")
        {
            found.skipped.push(format!(
                "{} `{}`: it names the plugin's data folder (`CLAUDE_PLUGIN_DATA`), which warden does not provide",
                hook.event, hook.command
            ));
            continue;
        }
        if names_root && needs_quoting {
            found.skipped.push(format!(
                "{} `{}`: the plugin's folder ({}) would need quoting in its command; write the entry by hand",
                hook.event,
                hook.command,
                match root {
                    PluginRoot::Workspace(rel) => rel,
                    PluginRoot::Outside(path) => path,
                }
            ));
            continue;
        }
        for var in PLUGIN_ROOT_VARS {
            for form in [format!("\"${{{var}}}\""), format!("\"${var}\"")] {
                hook.command = hook.command.replace(&form, &quoted);
            }
            for form in [format!("${{{var}}}"), format!("${var}")] {
                hook.command = hook.command.replace(&form, &bare);
            }
        }
        kept.push(hook);
    }
    found.hooks = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn claude_codes_settings_and_codexs_toml_read_alike() -> Result<(), String> {
        let json = r#"{"permissions": {}, "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "python3 guard.py", "timeout": 30},
                {"type": "prompt", "prompt": "is it safe?"}]}],
            "PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "./check.sh", "async": true}]}]
        }}"#;
        let read = import("settings.json", json)?;
        assert_eq!(
            read.hooks,
            [
                ImportedHook {
                    event: HookEvent::PreToolUse,
                    matcher: Some("Bash".into()),
                    command: "python3 guard.py".into(),
                    timeout: Some(30),
                },
                ImportedHook {
                    event: HookEvent::Stop,
                    matcher: None,
                    command: "./check.sh".into(),
                    timeout: None,
                },
            ]
        );
        assert_eq!(read.skipped.len(), 2, "{:?}", read.skipped);
        // `async` of the imported Stop hook: imported, and said to be left out.
        assert_eq!(read.notes.len(), 1, "{:?}", read.notes);
        let toml = r#"
[features]
hooks = true
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 guard.py"
timeout = 30
[hooks.state]
"x" = { enabled = true }
"#;
        let read = import("config.toml", toml)?;
        assert_eq!(read.hooks.len(), 1);
        assert_eq!(read.hooks[0].timeout, Some(30));
        let codex = r#"{"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "./check.sh", "timeoutSec": 15}]}]}}"#;
        assert_eq!(import("hooks.json", codex)?.hooks[0].timeout, Some(15));
        assert!(read.skipped.is_empty(), "{:?}", read.skipped);
        Ok(())
    }

    #[test]
    fn a_file_of_the_wrong_shape_is_an_error_saying_so() {
        for (name, text, says) in [
            ("settings.json", "{", "not JSON"),
            ("settings.json", "{}", "no `hooks`"),
            ("hooks.json", r#"{"hooks": []}"#, "not a table"),
            ("hooks.json", r#"{"hooks": {"Stop": {}}}"#, "not a list"),
            ("config.toml", "hooks = 1", "not a table"),
        ] {
            let err = import(name, text).err().unwrap_or_default();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn a_plugins_root_is_written_as_its_folder() -> Result<(), String> {
        let json = r#"{"hooks": {"PostToolUse": [{"hooks": [
            {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}\"/fmt.sh"},
            {"type": "command", "command": "node $CLAUDE_PLUGIN_ROOT/x.js \"${CLAUDE_PLUGIN_ROOT}/y\""},
            {"type": "command", "command": "cat ${CLAUDE_PLUGIN_DATA}/state"}]}]}}"#;
        let mut inside = import("hooks.json", json)?;
        replace_plugin_root(&mut inside, &PluginRoot::Workspace("plugins/p".into()));
        let commands: Vec<&str> = inside.hooks.iter().map(|h| h.command.as_str()).collect();
        assert_eq!(
            commands,
            [
                "sh \"${CLAUDE_PROJECT_DIR}\"/plugins/p/fmt.sh",
                "node ${CLAUDE_PROJECT_DIR}/plugins/p/x.js \"${CLAUDE_PROJECT_DIR}/plugins/p/y\"",
            ]
        );
        assert!(
            inside.skipped[0].contains("CLAUDE_PLUGIN_DATA"),
            "{:?}",
            inside.skipped
        );
        let mut outside = import("hooks.json", json)?;
        replace_plugin_root(&mut outside, &PluginRoot::Outside("/opt/p".into()));
        assert_eq!(outside.hooks[0].command, "sh /opt/p/fmt.sh");
        let mut spaced = import("hooks.json", json)?;
        replace_plugin_root(&mut spaced, &PluginRoot::Outside("/my plugins/p".into()));
        assert!(spaced.hooks.is_empty());
        assert!(
            spaced.skipped[0].contains("would need quoting"),
            "{:?}",
            spaced.skipped
        );
        Ok(())
    }

    proptest! {
        /// Whatever the file holds, reading it never panics.
        #[test]
        fn any_text_reads_or_fails_cleanly(text in ".{0,300}", toml in any::<bool>()) {
            let _ = import(if toml { "config.toml" } else { "hooks.json" }, &text);
        }
    }
}
