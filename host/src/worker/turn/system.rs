//! The default system prompt: a fixed opening, then one short paragraph describing this
//! session — every tool the model is offered, what the permission mode lets them do, and the
//! limits of `shell`'s sandbox.

use crate::config::{ShellConfig, ShellSandbox};
use crate::domain::builtin::{SHELL, ToolEffect, builtin_effect};
use crate::domain::escape::escape_capped;
use crate::domain::{Mode, ModeVerdict, ToolSpec};

use super::DEFAULT_SYSTEM_PROMPT as OPENING;

/// Longest tool name written into the prompt.
const MAX_NAME: usize = 64;

/// The default system prompt for a session offering `tools` under `mode`.
pub(super) fn default_prompt(tools: &[ToolSpec], mode: Mode, shell: &ShellConfig) -> String {
    let mut text = OPENING.to_owned();
    if tools.is_empty() {
        text.push_str(" No tools are available in this session.");
        return text;
    }
    let (builtin, other): (Vec<&ToolSpec>, Vec<&ToolSpec>) = tools
        .iter()
        .partition(|t| builtin_effect(&t.name).is_some());
    let names = |specs: &[&ToolSpec]| {
        specs
            .iter()
            .map(|t| format!("`{}`", escape_capped(&t.name, MAX_NAME)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    text.push_str("\n\nTools in this session: ");
    if !builtin.is_empty() {
        text.push_str(&names(&builtin));
        text.push_str(" (built in)");
    }
    if !other.is_empty() {
        if !builtin.is_empty() {
            text.push_str("; ");
        }
        text.push_str(&names(&other));
        text.push_str(" (from plugins and MCP servers; their descriptions say what they do)");
    }
    text.push_str(". ");
    text.push_str(&mode_sentence(mode));
    if builtin.iter().any(|t| t.name == SHELL) {
        text.push(' ');
        text.push_str(&shell_sentence(shell));
    }
    text
}

/// What `mode` does with writes and commands.
fn mode_sentence(mode: Mode) -> String {
    let verdict = |effect| match mode.judge(effect) {
        ModeVerdict::Run => "run at once",
        ModeVerdict::Ask => "are asked of the user, who may deny them",
        ModeVerdict::Deny => "are refused",
    };
    let write = verdict(ToolEffect::Write);
    let shell = verdict(ToolEffect::Shell);
    let both = if write == shell {
        format!("writes and commands {write}")
    } else {
        format!("writes {write} and commands {shell}")
    };
    format!(
        "The permission mode is `{}`: reading runs at once, {both}; a denied call's result \
         says why.",
        mode.name()
    )
}

/// Where `shell` commands run and what they cannot do.
fn shell_sentence(shell: &ShellConfig) -> String {
    let stop = format!("and are stopped after {} s", shell.timeout_s);
    if shell.sandbox == ShellSandbox::None {
        return format!("`shell` commands run without a sandbox {stop}.");
    }
    let network = if shell.network {
        "may use the network".to_owned()
    } else if shell.allowed_hosts.is_empty() {
        "have no network".to_owned()
    } else {
        let hosts: Vec<String> = shell
            .allowed_hosts
            .iter()
            .take(8)
            .map(|h| escape_capped(h, MAX_NAME))
            .collect();
        format!(
            "have no network except HTTP(S) to {} through a proxy",
            hosts.join(", ")
        )
    };
    format!(
        "`shell` commands run in a sandbox: they can write only inside the workspace and a \
         private temporary directory, cannot read the user's credentials or the workspace's \
         denied files, {network}, {stop}."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            input_schema: serde_json::json!({"type": "object"}),
        }
    }

    #[test]
    fn names_each_tool_the_mode_and_the_sandbox() {
        let tools = [spec("read_file"), spec("shell"), spec("docs_search")];
        let text = default_prompt(&tools, Mode::AutoEdit, &ShellConfig::default());
        assert!(text.contains("`read_file`, `shell` (built in); `docs_search` (from plugins"));
        assert!(text.contains(
            "mode is `auto-edit`: reading runs at once, writes run at once and commands are \
             asked of the user"
        ));
        assert!(
            text.contains("have no network, and are stopped after 120 s."),
            "{text}"
        );
        let shell = ShellConfig {
            allowed_hosts: vec!["crates.io".into()],
            ..ShellConfig::default()
        };
        let text = default_prompt(&tools, Mode::ReadOnly, &shell);
        assert!(text.contains("writes and commands are refused"), "{text}");
        assert!(
            text.contains("except HTTP(S) to crates.io through a proxy"),
            "{text}"
        );
        let text = default_prompt(&[spec("read_file")], Mode::Ask, &ShellConfig::default());
        assert!(!text.contains("sandbox"), "{text}");
        assert!(default_prompt(&[], Mode::Ask, &shell).contains("No tools"));
    }
}
