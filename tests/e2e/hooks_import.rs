//! `warden hooks import FILE [--to user|project] [--dry-run]` through the binary: a Codex
//! `hooks.json` inside the workspace's `.codex/` goes to the project config, a Claude Code
//! `settings.json` to the layer `--to` names; `--dry-run` prints the TOML and writes nothing;
//! `config show --json` then lists the hooks with their layer, event and timeout.

use serde_json::Value;

use crate::support::{TestEnv, stderr, stdout};

/// `config show --json`'s hooks: name, layer, event, timeout.
fn listed(env: &TestEnv) -> Vec<(String, String, String, u64)> {
    let out = env.run(&["config", "show", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    value["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap_or_default().to_owned(),
                h["origin"].as_str().unwrap_or_default().to_owned(),
                h["event"].as_str().unwrap_or_default().to_owned(),
                h["timeout_s"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn a_codex_hooks_json_and_claude_settings_are_imported_into_their_layers() {
    let env = TestEnv::new();
    env.write(".codex/hooks/check.sh", "#!/bin/sh\nexit 0\n");
    // Codex spells the deadline `timeout` or `timeoutSec`.
    let codex = env.write(
        ".codex/hooks.json",
        r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "sh .codex/hooks/check.sh", "timeoutSec": 15}]}],
  "SubagentStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let out = env.run(&["hooks", "import", &codex.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("added 1 hook"), "{text}");
    assert!(text.contains("not imported: SubagentStart"), "{text}");
    let project = env.workspace().join(".warden/config.toml");
    let written = std::fs::read_to_string(&project).unwrap();
    assert!(written.contains("timeout = 15"), "{written}");

    let claude = env.outside().join("settings.json");
    std::fs::write(
        &claude,
        r#"{"hooks": {
  "PostToolUse": [{"matcher": "Write|Edit", "hooks": [
    {"type": "command", "command": "npx prettier --write", "timeout": 30}]}],
  "UserPromptSubmit": [{"matcher": "deploy", "hooks": [{"type": "command", "command": "./context.sh"}]}]}}"#,
    )
    .unwrap();
    let claude = claude.to_string_lossy().into_owned();
    // --dry-run: the TOML, and no file changes.
    let out = env.run(&["hooks", "import", &claude, "--to", "project", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("[[hooks]]") && text.contains("name = \"prettier\""),
        "{text}"
    );
    assert!(
        text.contains("imported without: UserPromptSubmit")
            && text.contains("its matcher is not used at UserPromptSubmit"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&project).unwrap(), written);

    let out = env.run(&["hooks", "import", &claude, "--to", "user"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("added 2 hooks"), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(&project).unwrap(), written);
    let again = env.run(&["hooks", "import", &claude, "--to", "user"]);
    assert!(
        stdout(&again).contains("added 0 hooks (2 already there)"),
        "{}",
        stdout(&again)
    );
    let hooks = listed(&env);
    let expected = [
        ("prettier", "user", "PostToolUse", 30),
        ("context", "user", "UserPromptSubmit", 60),
        ("check", "project", "PreToolUse", 15),
    ];
    assert_eq!(
        hooks,
        expected.map(|(n, o, e, t)| (n.to_owned(), o.to_owned(), e.to_owned(), t))
    );
}

/// A hooks file in the workspace but outside its `.claude/` and `.codex/` is not the
/// project's own: it goes to the user config unless `--to project` says otherwise.
#[test]
fn a_file_outside_claude_and_codex_folders_goes_to_the_user_config() {
    let env = TestEnv::new();
    let file = env.write(
        "vendor/hooks.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./vendor/done.sh"}]}]}}"#,
    );
    let out = env.run(&["hooks", "import", &file.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!env.workspace().join(".warden/config.toml").exists());
    assert_eq!(
        listed(&env),
        [("done".to_owned(), "user".to_owned(), "Stop".to_owned(), 60)]
    );
    // Hooks switched off where they come from stay off.
    let off = env.write(
        "vendor/off.json",
        r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./vendor/off.sh"}]}]}}"#,
    );
    let out = env.run(&["hooks", "import", &off.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("added 0 hooks")
            && stdout(&out).contains("`disableAllHooks` is true"),
        "{}",
        stdout(&out)
    );
    assert_eq!(listed(&env).len(), 1);
    let out = env.run(&[
        "hooks",
        "import",
        &file.to_string_lossy(),
        "--to",
        "elsewhere",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
}

/// A Claude Code plugin's `hooks/hooks.json` names its scripts under `${CLAUDE_PLUGIN_ROOT}`,
/// which warden does not set: the import writes the plugin's folder in its place (under
/// `$CLAUDE_PROJECT_DIR` in the workspace), so the hook runs and a project's trust covers the
/// script.
#[test]
fn a_plugins_hooks_name_their_scripts_by_the_plugins_folder() {
    let env = TestEnv::new();
    env.write("plugins/fmt/scripts/fmt.sh", "exit 0\n");
    let file = env.write(
        "plugins/fmt/hooks/hooks.json",
        r#"{"description": "formatter", "hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [
    {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}\"/scripts/fmt.sh"},
    {"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh --check"}]}]}}"#,
    );
    let out = env.run(&[
        "hooks",
        "import",
        &file.to_string_lossy(),
        "--to",
        "project",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&["config", "show", "--json"]);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let commands: Vec<&str> = value["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["command"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        commands,
        [
            "sh \"${CLAUDE_PROJECT_DIR}\"/plugins/fmt/scripts/fmt.sh",
            "sh ${CLAUDE_PROJECT_DIR}/plugins/fmt/scripts/fmt.sh --check",
        ]
    );
    let trusted = env.trusted();
    assert!(
        trusted.contains("runs plugins/fmt/scripts/fmt.sh"),
        "{trusted}"
    );
}
