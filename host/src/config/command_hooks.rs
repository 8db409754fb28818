//! `[[hooks]]`: command hooks in the shape Claude Code and Codex write them (an event, a
//! `matcher`, `type = "command"`, a `command`, a `timeout` in seconds), run in warden's
//! sandbox with the grants the entry names (`fs`, `allowed_hosts`, `env`), under a failure
//! policy (`on_error`) and, with `mode = "shadow"`, recorded and never applied.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ConfigError;
use super::grants::FsGrant;
use super::project_grants::ProjectToolGrants;
use super::schema::{PluginKind, PluginMode, PluginSpec, PolicyConfig};
use crate::domain::hook_event::HookEvent;

/// Default deadline of one hook run, in seconds (Claude Code's).
pub const HOOK_TIMEOUT_S: u64 = 60;
/// Ceiling on a hook's deadline, in seconds: a larger `timeout` is clamped.
pub const MAX_HOOK_TIMEOUT_S: u64 = 600;

/// What a hook's failure (a crash, a deadline, output warden cannot read, an exit code other
/// than 0 and 2) means for the call it was asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HookOnError {
    /// The call goes on, with one alert (what Claude Code and Codex do).
    Allow,
    /// The call is denied, the prompt cancelled, the turn ended.
    Deny,
}

impl HookOnError {
    /// The name as configuration writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
        }
    }
}

/// One `[[hooks]]` entry with every default applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandHookEntry {
    /// Name in alerts, audit records (`hook:<name>`) and item sources.
    pub name: String,
    /// The event it runs at.
    pub event: HookEvent,
    /// Claude Code's `matcher` (tool names, a regular expression; `None`: every tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The command line, run by `/bin/sh -c` in the workspace root.
    pub command: String,
    /// Deadline of one run, in seconds.
    pub timeout_s: u64,
    /// The workspace roots: `read` (the default), `read-write` or `none`.
    pub fs: FsGrant,
    /// Host patterns reachable through warden's filtering proxy; no network without them.
    pub allowed_hosts: Vec<String>,
    /// Names of environment variables passed through besides the sandbox's harmless ones.
    pub env: Vec<String>,
    /// What its failure means.
    pub on_error: HookOnError,
    /// `enforce` or `shadow`.
    pub mode: PluginMode,
    /// `user`, `project` or `managed`.
    pub origin: String,
    /// The config file that declared it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_in: Option<PathBuf>,
}

impl CommandHookEntry {
    /// Where the entry comes from, for a message: the file that declared it, else its layer.
    pub fn declared_where(&self) -> String {
        self.declared_in
            .as_ref()
            .map_or_else(|| self.origin.clone(), |path| path.display().to_string())
    }

    /// The sha256 (lowercase hex) of what it runs as configured: its event, matcher and
    /// command. What audit records name it by, with the name.
    pub fn digest(&self) -> String {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        for part in [
            self.event.name(),
            self.matcher.as_deref().unwrap_or(""),
            self.command.as_str(),
        ] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hex::encode(hasher.finalize())
    }
}

/// One `[[hooks]]` entry as written in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSpec {
    /// Its name (default: the stem of the script its command names, else its program's name).
    pub name: Option<String>,
    /// The event, in Claude Code's spelling (`PreToolUse`, …).
    pub event: String,
    /// Claude Code's `matcher`.
    pub matcher: Option<String>,
    /// `command` (the only type warden runs).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The command line.
    pub command: String,
    /// Deadline, in seconds.
    pub timeout: Option<u64>,
    /// The workspace roots: `read` (default), `read-write` or `none`.
    pub fs: Option<FsGrant>,
    /// Host patterns reachable through warden's proxy.
    pub allowed_hosts: Option<Vec<String>>,
    /// Variables passed through.
    pub env: Option<Vec<String>>,
    /// `allow` or `deny`.
    pub on_error: Option<HookOnError>,
    /// `enforce` (default) or `shadow`.
    pub mode: Option<PluginMode>,
}

/// The name a hook goes by when its entry gives none: the stem of the script it runs
/// (`guard` for `python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py`), the package a runner
/// starts (`prettier` for `npx prettier --write`), else its program's file name.
pub fn default_name(command: &str) -> String {
    const RUNNERS: &[&str] = &[
        "python", "python3", "node", "npx", "bunx", "bun", "uvx", "uv", "bash", "sh", "zsh",
        "ruby", "deno", "pnpx", "perl", "php",
    ];
    let split = crate::domain::shell_split::split(command);
    let words: Vec<String> = split
        .commands
        .first()
        .map(|c| {
            c.words
                .iter()
                .map(|w| w.text.trim_matches(['"', '\'']).to_owned())
                .collect()
        })
        .unwrap_or_default();
    let file_stem = |word: &str| {
        let file = word.rsplit('/').next().unwrap_or(word);
        file.split('.').next().unwrap_or(file).to_owned()
    };
    let program = words.first().map(|w| file_stem(w)).unwrap_or_default();
    let rest = words.iter().skip(1).filter(|w| !w.starts_with('-'));
    let chosen = if RUNNERS.contains(&program.as_str()) {
        rest.clone()
            .find(|w| *w != "run" && *w != "exec")
            .map(|w| file_stem(w))
    } else {
        rest.clone()
            .find(|w| w.contains('/') && w.contains('.'))
            .map(|w| file_stem(w))
    }
    .filter(|s| !s.is_empty())
    .unwrap_or(program);
    let name: String = chosen
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        // Room for a `-2` … `-999` suffix within a name's 32 characters.
        .take(28)
        .collect();
    if name.is_empty() {
        "hook".to_owned()
    } else {
        name
    }
}

/// A hook's name: 1 to 32 of A-Z a-z 0-9 - _.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Check one entry of the `layer` layer read from `path` and apply its defaults; a `timeout`
/// above the ceiling is clamped with a warning.
pub(crate) fn resolve(
    spec: HookSpec,
    layer: &str,
    path: &Path,
    policy: &PolicyConfig,
    project: Option<(Option<&ProjectToolGrants>, &Path)>,
    warnings: &mut Vec<String>,
) -> Result<CommandHookEntry, ConfigError> {
    let name = match &spec.name {
        Some(name) => name.clone(),
        None => default_name(&spec.command),
    };
    let invalid = |key: &str, message: String| ConfigError::Invalid {
        path: path.to_owned(),
        key: if key.is_empty() {
            format!("hooks.{name}")
        } else {
            format!("hooks.{name}.{key}")
        },
        message: format!("({layer} layer) {message}"),
    };
    if !valid_name(&name) {
        return Err(invalid(
            "name",
            format!("{name:?}: a hook's name is 1 to 32 of A-Z a-z 0-9 - _"),
        ));
    }
    let event: HookEvent =
        spec.event
            .parse()
            .map_err(|e: crate::domain::hook_event::UnknownHookEvent| {
                invalid("event", e.to_string())
            })?;
    match spec.kind.as_deref() {
        None | Some("command") => {}
        Some(other) => {
            return Err(invalid(
                "type",
                format!(
                    "`type = {other:?}`: warden runs command hooks only (`type = \"command\"`); a prompt or agent hook can be written as a wasm interceptor (see docs/hooks.md)"
                ),
            ));
        }
    }
    if spec.command.trim().is_empty() {
        return Err(invalid("command", "an empty command".into()));
    }
    if let Some(matcher) = &spec.matcher {
        crate::domain::tool_matcher::ToolMatcher::parse(matcher)
            .map_err(|why| invalid("matcher", format!("`matcher` {why}")))?;
    }
    for var in spec.env.iter().flatten() {
        super::check_env_name(var).map_err(|why| invalid("env", why))?;
        if var.starts_with("WARDEN_") {
            return Err(invalid(
                "env",
                format!("{var:?}: warden's own variables are never passed to a hook"),
            ));
        }
    }
    let allowed_hosts = spec.allowed_hosts.clone().unwrap_or_default();
    super::parse_host_patterns(&allowed_hosts).map_err(|why| invalid("allowed_hosts", why))?;
    if layer != "managed" && policy.managed_hooks_only {
        return Err(invalid(
            "",
            format!(
                "hook `{name}` refused: managed policy allows managed hooks only (`policy.managed_hooks_only`)"
            ),
        ));
    }
    // Its grants are held to the same ceilings as a tool plugin's.
    let as_tool = PluginSpec {
        name: name.clone(),
        kind: PluginKind::Tool,
        path: PathBuf::new(),
        source: None,
        sha256: None,
        failure: None,
        timeout_ms: None,
        memory_mb: None,
        max_items: None,
        max_output_bytes: None,
        config: BTreeMap::new(),
        fs: spec.fs,
        allowed_hosts: (!allowed_hosts.is_empty()).then(|| allowed_hosts.clone()),
        env: spec.env.clone().filter(|e| !e.is_empty()),
        approve: None,
        mode: None,
        matcher: None,
    };
    let as_hook_error = |err: ConfigError| match err {
        ConfigError::Invalid { path, key, message } => ConfigError::Invalid {
            path,
            key: key.replacen("plugins.", "hooks.", 1),
            message: message.replace("tool plugin", "hook"),
        },
        other => other,
    };
    let ceiling_files: Vec<PathBuf> = policy
        .max_tool_grants_from
        .iter()
        .map(|(path, _, _)| path.clone())
        .collect();
    super::tool_policy::check_against_policy(
        &as_tool,
        layer,
        path,
        policy.max_tool_grants.as_ref(),
        &ceiling_files,
        false,
    )
    .map_err(as_hook_error)?;
    if let Some((allowed, user_file)) = project {
        super::project_grants::check_project_tool(&as_tool, path, allowed, user_file)
            .map_err(as_hook_error)?;
    }
    let mut timeout_s = spec.timeout.unwrap_or(HOOK_TIMEOUT_S).max(1);
    if timeout_s > MAX_HOOK_TIMEOUT_S {
        warnings.push(format!(
            "{}: hook `{name}`: `timeout = {timeout_s}` is above the ceiling of {MAX_HOOK_TIMEOUT_S} s; {MAX_HOOK_TIMEOUT_S} s applies",
            path.display()
        ));
        timeout_s = MAX_HOOK_TIMEOUT_S;
    }
    let on_error = if policy.hooks_fail_closed {
        HookOnError::Deny
    } else {
        spec.on_error.unwrap_or(if layer == "managed" {
            HookOnError::Deny
        } else {
            HookOnError::Allow
        })
    };
    Ok(CommandHookEntry {
        name,
        event,
        matcher: spec.matcher.filter(|m| !m.trim().is_empty()),
        command: spec.command,
        timeout_s,
        fs: spec.fs.unwrap_or(FsGrant::Read),
        allowed_hosts,
        env: spec.env.unwrap_or_default(),
        on_error,
        mode: spec.mode.unwrap_or_default(),
        origin: layer.to_owned(),
        declared_in: Some(path.to_owned()),
    })
}

/// Names are unique among hooks: a name an entry gives itself stays its own, and an entry
/// without one whose default is taken gets `-2`, `-3`; two entries that name themselves alike
/// are an error naming both files.
pub(crate) fn make_unique(
    entries: &mut [CommandHookEntry],
    named: &[bool],
) -> Result<(), ConfigError> {
    let is_named = |at: usize| named.get(at).copied().unwrap_or(true);
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for (at, entry) in entries.iter().enumerate() {
        if !is_named(at) {
            continue;
        }
        if let Some(&first) = taken.get(&entry.name) {
            return Err(ConfigError::Invalid {
                path: entry.declared_in.clone().unwrap_or_default(),
                key: format!("hooks.{}", entry.name),
                message: format!(
                    "a hook named `{}` is already declared in {}; give each a `name` of its own",
                    entry.name,
                    entries[first].declared_where()
                ),
            });
        }
        taken.insert(entry.name.clone(), at);
    }
    for (at, entry) in entries.iter_mut().enumerate() {
        if is_named(at) {
            continue;
        }
        let base = entry.name.clone();
        let mut n = 2;
        while taken.contains_key(&entry.name) {
            entry.name = format!("{base}-{n}");
            n += 1;
        }
        taken.insert(entry.name.clone(), at);
    }
    Ok(())
}

/// The workspace files under `root` a hook's command names (`"$CLAUDE_PROJECT_DIR"/x.sh`,
/// `python3 .claude/hooks/guard.py`), each with its digest: what a project's trust covers.
pub(crate) fn command_files(
    root: &Path,
    command: &str,
    digest: &dyn Fn(&Path) -> String,
) -> BTreeMap<String, String> {
    let root_text = root.display().to_string();
    let mut expanded = command.to_owned();
    for var in ["CLAUDE_PROJECT_DIR", "WARDEN_PROJECT_DIR"] {
        for form in [
            format!("\"${{{var}}}\""),
            format!("\"${var}\""),
            format!("${{{var}}}"),
            format!("${var}"),
        ] {
            expanded = expanded.replace(&form, &root_text);
        }
    }
    let words: Vec<String> = crate::domain::shell_split::split(&expanded)
        .commands
        .iter()
        .flat_map(|c| {
            c.words
                .iter()
                .map(|w| w.text.trim_matches(['"', '\'']).to_owned())
        })
        .collect();
    super::trust_files::workspace_files(root, &words, &[], digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(event: &str, command: &str) -> HookSpec {
        HookSpec {
            name: None,
            event: event.into(),
            matcher: None,
            kind: None,
            command: command.into(),
            timeout: None,
            fs: None,
            allowed_hosts: None,
            env: None,
            on_error: None,
            mode: None,
        }
    }

    fn resolved(
        spec: HookSpec,
        layer: &str,
        policy: &PolicyConfig,
    ) -> Result<CommandHookEntry, String> {
        let mut warnings = Vec::new();
        resolve(
            spec,
            layer,
            Path::new("/c.toml"),
            policy,
            None,
            &mut warnings,
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_follow_the_layer_and_policy_can_make_every_hook_fail_closed() -> Result<(), String>
    {
        let policy = PolicyConfig::default();
        let user = resolved(
            spec(
                "PreToolUse",
                "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py",
            ),
            "user",
            &policy,
        )?;
        assert_eq!(user.name, "guard");
        assert_eq!(user.on_error, HookOnError::Allow);
        assert_eq!((user.fs, user.timeout_s), (FsGrant::Read, HOOK_TIMEOUT_S));
        assert_eq!(default_name("npx prettier --write"), "prettier");
        assert_eq!(
            default_name("/usr/local/bin/ggshield secret scan pre-commit"),
            "ggshield"
        );
        let managed = resolved(spec("Stop", "/opt/check"), "managed", &policy)?;
        assert_eq!(
            (managed.name.as_str(), managed.on_error),
            ("check", HookOnError::Deny)
        );
        let closed = PolicyConfig {
            hooks_fail_closed: true,
            ..PolicyConfig::default()
        };
        let mut allow = spec("Stop", "x");
        allow.on_error = Some(HookOnError::Allow);
        assert_eq!(
            resolved(allow, "user", &closed)?.on_error,
            HookOnError::Deny
        );
        Ok(())
    }

    #[test]
    fn each_bad_entry_is_an_error_naming_it() {
        let policy = PolicyConfig::default();
        let mut prompt = spec("Stop", "x");
        prompt.kind = Some("prompt".into());
        let mut matcher = spec("PreToolUse", "x");
        matcher.matcher = Some("(".into());
        let mut secret = spec("PreToolUse", "x");
        secret.env = Some(vec!["WARDEN_HOME".into()]);
        for (spec, says) in [
            (spec("PreToolCall", "x"), "unknown hook event `PreToolCall`"),
            (prompt, "command hooks only"),
            (spec("Stop", "  "), "an empty command"),
            (matcher, "not a valid regular expression"),
            (secret, "never passed to a hook"),
        ] {
            let err = resolved(spec, "user", &policy).err().unwrap_or_default();
            assert!(err.contains(says) && err.contains("hooks."), "{err}");
        }
        let only = PolicyConfig {
            managed_hooks_only: true,
            ..PolicyConfig::default()
        };
        let err = resolved(spec("Stop", "x"), "project", &only)
            .err()
            .unwrap_or_default();
        assert!(err.contains("managed_hooks_only"), "{err}");
    }

    #[test]
    fn a_long_timeout_is_clamped_with_a_warning_naming_the_file() -> Result<(), String> {
        let mut long = spec("Stop", "./check.sh");
        long.timeout = Some(MAX_HOOK_TIMEOUT_S + 1);
        let mut warnings = Vec::new();
        let entry = resolve(
            long,
            "user",
            Path::new("/home/u/.config/warden/config.toml"),
            &PolicyConfig::default(),
            None,
            &mut warnings,
        )
        .map_err(|e| e.to_string())?;
        assert_eq!(entry.timeout_s, MAX_HOOK_TIMEOUT_S);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("/home/u/.config/warden/config.toml")
                && warnings[0].contains("hook `check`"),
            "{warnings:?}"
        );
        Ok(())
    }

    #[test]
    fn grants_are_held_to_the_tool_ceilings_and_a_projects_to_its_allowance() {
        let mut wide = spec("PostToolUse", "./fmt.sh");
        wide.fs = Some(FsGrant::ReadWrite);
        let ceiling = PolicyConfig {
            max_tool_grants: Some(super::super::ToolGrantCeiling {
                fs: Some(FsGrant::Read),
                allowed_hosts: None,
                env: None,
            }),
            ..PolicyConfig::default()
        };
        let err = resolved(wide.clone(), "user", &ceiling)
            .err()
            .unwrap_or_default();
        assert!(
            err.contains("hooks.fmt") && err.contains("max_tool_grants"),
            "{err}"
        );
        assert!(resolved(wide, "user", &PolicyConfig::default()).is_ok());
        // A project's env only as far as the user's policy.project_tool_grants allows.
        let mut token = spec("PreToolUse", "./guard.sh");
        token.env = Some(vec!["GITHUB_TOKEN".into()]);
        let project = |allowed: Option<&ProjectToolGrants>| {
            resolve(
                token.clone(),
                "project",
                Path::new("/w/.warden/config.toml"),
                &PolicyConfig::default(),
                Some((allowed, Path::new("/u/config.toml"))),
                &mut Vec::new(),
            )
            .map_err(|e| e.to_string())
        };
        let err = project(None).err().unwrap_or_default();
        assert!(
            err.contains("hooks.guard") && err.contains("GITHUB_TOKEN"),
            "{err}"
        );
        let allowed = ProjectToolGrants {
            env: vec!["GITHUB_TOKEN".into()],
            allowed_hosts: Vec::new(),
        };
        assert!(project(Some(&allowed)).is_ok());
    }

    #[test]
    fn unnamed_hooks_are_numbered_and_two_alike_named_ones_refused() -> Result<(), String> {
        let policy = PolicyConfig::default();
        let mut entries = vec![
            resolved(spec("Stop", "./lint.sh"), "user", &policy)?,
            resolved(spec("PreToolUse", "./lint.sh"), "user", &policy)?,
        ];
        make_unique(&mut entries, &[false, false]).map_err(|e| e.to_string())?;
        assert_eq!(
            [entries[0].name.as_str(), entries[1].name.as_str()],
            ["lint", "lint-2"]
        );
        assert!(make_unique(&mut entries.clone(), &[true, true]).is_ok());
        entries[1].name = "lint".into();
        assert!(make_unique(&mut entries, &[true, true]).is_err());
        // A name an entry gives itself stays its own, even after an unnamed one's default.
        let mut entries = vec![
            resolved(spec("Stop", "./lint.sh"), "user", &policy)?,
            resolved(spec("Stop", "./lint.sh"), "user", &policy)?,
            resolved(spec("PreToolUse", "./other.sh"), "project", &policy)?,
        ];
        entries[2].name = "lint".into();
        make_unique(&mut entries, &[false, false, true]).map_err(|e| e.to_string())?;
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["lint-2", "lint-3", "lint"]);
        Ok(())
    }

    #[test]
    fn the_files_a_command_names_are_found_in_every_spelling() {
        let dir = std::env::temp_dir().join(format!("warden-hook-files-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join(".claude/hooks"));
        let _ = std::fs::write(dir.join(".claude/hooks/guard.py"), "print()");
        let root = std::fs::canonicalize(&dir).unwrap_or(dir.clone());
        for command in [
            "python3 .claude/hooks/guard.py",
            "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py",
            "python3 ${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.py --strict",
        ] {
            let files = command_files(&root, command, &|_| "d".into());
            assert_eq!(
                files.keys().collect::<Vec<_>>(),
                [".claude/hooks/guard.py"],
                "{command}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
