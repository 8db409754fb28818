//! Sample interceptor: guards tool calls as an operator would.
//!
//! Config:
//! - `deny`: comma-separated rules `TOOL:GLOB` (or just `TOOL`): a call of `TOOL` (`*` for
//!   any tool) whose `path` argument matches `GLOB` is denied, e.g.
//!   `deny = "write_file:*.lock,grep:secret*"`. A rule without a glob denies every call of the
//!   tool. Globs ignore case; `*` does not cross `/`, `**` does.
//!   A call with a `command` argument (the built-in `shell`) is matched on its command text
//!   too, where `*` crosses `/` (a command is not a path): `deny = "shell:*rm -rf*"` denies
//!   every command containing `rm -rf`. The text is matched as the model wrote it: a rule on a
//!   command is a tripwire, not a sandbox (`sh -c 'r''m -rf x'` is not caught).
//! - `rewrite`: comma-separated `FROM=>TO` path prefixes: a call whose `path` argument starts
//!   with `FROM` runs with `TO` in its place, e.g. `rewrite = "old/=>new/"`.
//! - `reason`: text prepended to denials (default `tool-guard`).
//! - `roots`: set by the host (newline-separated workspace roots, the first the primary one).
//!
//! Globs and prefixes are matched against the path the tool would open, relative to the
//! workspace root, never against the raw string: see [`normalise`]. `./secret.txt`,
//! `a/../secret.txt` and `<root>/secret.txt` are all `secret.txt`. A path that leaves the
//! workspace (`../x`, an absolute path under no root) matches no glob: it names no workspace
//! file, and the file tools refuse it themselves.

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;
use warden_plugin::Config;
use warden_plugin::interceptor::{Interceptor, ToolAction, ToolCall};

/// One deny rule.
struct Rule {
    text: String,
    tool: String,
    glob: Option<GlobMatcher>,
    /// The same glob for a `command` argument, `*` crossing `/`.
    command: Option<GlobMatcher>,
}

/// The guard.
pub struct ToolGuard {
    deny: Vec<Rule>,
    rewrite: Vec<(String, String)>,
    reason: String,
    roots: Vec<String>,
}

/// `path` as the workspace-relative path a file tool would open, resolved lexically: empty and
/// `.` components dropped, `..` taking back the component before it, an absolute path under
/// one of `roots` made relative to it (the root itself is `.`). `None` for a path that leaves
/// the workspace: a `..` above the start, or an absolute path under no root.
pub fn normalise(path: &str, roots: &[String]) -> Option<String> {
    let relative = if path.starts_with('/') {
        let absolute = lexical(path)?;
        roots.iter().find_map(|root| {
            let root = lexical(root)?;
            if root.is_empty() {
                // The root is `/` itself.
                return Some(absolute.clone());
            }
            if absolute == root {
                return Some(String::new());
            }
            absolute
                .strip_prefix(root.as_str())?
                .strip_prefix('/')
                .map(str::to_owned)
        })?
    } else {
        lexical(path)?
    };
    Some(if relative.is_empty() {
        ".".to_owned()
    } else {
        relative
    })
}

/// The components of `path` joined by `/` after dropping empty and `.` ones and resolving
/// `..`; `None` when a `..` has nothing left to take back.
fn lexical(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

fn list(config: &Config, key: &str) -> Vec<String> {
    config
        .get(key)
        .unwrap_or("")
        .split([',', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

impl ToolGuard {
    /// A guard from its config.
    pub fn from_config(config: &Config) -> Result<Self, String> {
        let mut deny = Vec::new();
        for text in list(config, "deny") {
            let (tool, glob) = match text.split_once(':') {
                Some((tool, glob)) => (tool.trim(), Some(glob.trim())),
                None => (text.as_str(), None),
            };
            if tool.is_empty() {
                return Err(format!("deny rule {text:?}: no tool name"));
            }
            let compile = |glob: &str, literal_separator: bool| {
                GlobBuilder::new(glob)
                    .literal_separator(literal_separator)
                    .case_insensitive(true)
                    .build()
                    .map(|g| g.compile_matcher())
                    .map_err(|e| format!("deny rule {text:?}: {e}"))
            };
            let (glob, command) = match glob {
                Some(glob) => (Some(compile(glob, true)?), Some(compile(glob, false)?)),
                None => (None, None),
            };
            deny.push(Rule {
                tool: tool.to_owned(),
                glob,
                command,
                text: text.clone(),
            });
        }
        let mut rewrite = Vec::new();
        for text in list(config, "rewrite") {
            let Some((from, to)) = text.split_once("=>") else {
                return Err(format!("rewrite rule {text:?}: expected FROM=>TO"));
            };
            if from.trim().is_empty() {
                return Err(format!("rewrite rule {text:?}: empty prefix"));
            }
            rewrite.push((from.trim().to_owned(), to.trim().to_owned()));
        }
        Ok(Self {
            deny,
            rewrite,
            reason: config.get("reason").unwrap_or("tool-guard").to_owned(),
            roots: list(config, "roots"),
        })
    }

    /// The decision on a call of `tool` with `arguments` (JSON text).
    pub fn judge(&self, tool: &str, arguments: &str) -> ToolAction {
        let mut args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
        let path = args.get("path").and_then(Value::as_str).map(str::to_owned);
        // What the globs and prefixes see: the workspace-relative path (`None` outside it).
        let target = path.as_deref().and_then(|p| normalise(p, &self.roots));
        let command = args
            .get("command")
            .and_then(Value::as_str)
            .map(str::to_owned);
        for rule in &self.deny {
            if rule.tool != "*" && rule.tool != tool {
                continue;
            }
            let on_path = match (&rule.glob, &target) {
                (None, _) => true,
                (Some(glob), Some(target)) => glob.is_match(target),
                (Some(_), None) => false,
            };
            let on_command = match (&rule.command, &command) {
                (Some(glob), Some(command)) => glob.is_match(command),
                _ => false,
            };
            if on_path || on_command {
                let what = if on_command && !on_path {
                    command.as_deref().map(|c| format!("on command `{c}` "))
                } else {
                    path.as_deref().map(|p| format!("on `{p}` "))
                };
                return ToolAction::Deny(format!(
                    "{}: `{tool}` {}is denied by rule `{}`",
                    self.reason,
                    what.unwrap_or_default(),
                    rule.text
                ));
            }
        }
        if let Some(target) = target {
            for (from, to) in &self.rewrite {
                if let Some(rest) = target.strip_prefix(from.as_str()) {
                    args["path"] = Value::String(format!("{to}{rest}"));
                    return ToolAction::Rewrite(args.to_string());
                }
            }
        }
        ToolAction::Allow
    }
}

impl Interceptor for ToolGuard {
    fn init(config: Config) -> Result<Self, String> {
        Self::from_config(&config)
    }

    fn pre_tool_call(&mut self, call: ToolCall) -> ToolAction {
        let action = self.judge(&call.name, &call.arguments);
        if let ToolAction::Deny(reason) = &action {
            warden_plugin::info!("{reason}");
        }
        action
    }
}

#[cfg(target_arch = "wasm32")]
warden_plugin::export_interceptor!(ToolGuard);

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "/home/me/work";

    fn guard(deny: &str, rewrite: &str) -> ToolGuard {
        ToolGuard::from_config(&Config::from(vec![
            ("deny".to_owned(), deny.to_owned()),
            ("rewrite".to_owned(), rewrite.to_owned()),
            ("roots".to_owned(), format!("{ROOT}\n/srv/second")),
        ]))
        .unwrap()
    }

    fn denied(g: &ToolGuard, tool: &str, path: &str) -> bool {
        let args = serde_json::json!({ "path": path }).to_string();
        matches!(g.judge(tool, &args), ToolAction::Deny(_))
    }

    #[test]
    fn a_rule_on_a_command_matches_its_text_across_slashes() {
        let g = guard("shell:*rm -rf*", "");
        let judge = |command: &str| {
            let args = serde_json::json!({ "command": command }).to_string();
            g.judge("shell", &args)
        };
        assert!(
            matches!(judge("rm -rf /tmp/x"), ToolAction::Deny(r) if r.contains("on command `rm -rf /tmp/x`"))
        );
        assert!(matches!(judge("cd a && RM -RF b/c"), ToolAction::Deny(_)));
        assert!(matches!(judge("rm -r b"), ToolAction::Allow));
        // Another tool's rule does not apply to `shell`.
        let g = guard("read_file:*secret*", "");
        let args = serde_json::json!({ "command": "cat secret.txt" }).to_string();
        assert!(matches!(g.judge("shell", &args), ToolAction::Allow));
    }

    #[test]
    fn paths_are_normalised_against_the_roots() {
        let roots = [ROOT.to_owned(), "/srv/second/".to_owned()];
        let cases = [
            ("secret.txt", Some("secret.txt")),
            ("./secret.txt", Some("secret.txt")),
            (".//a/./b/../secret.txt", Some("a/secret.txt")),
            ("a/../secret.txt", Some("secret.txt")),
            ("a/..", Some(".")),
            ("", Some(".")),
            ("/home/me/work/secret.txt", Some("secret.txt")),
            ("/home/me/work//a/../secret.txt", Some("secret.txt")),
            ("/home/me/work", Some(".")),
            ("/srv/second/x/y", Some("x/y")),
            ("/home/me/workshop/secret.txt", None),
            ("/home/me/work/../secret.txt", None),
            ("../secret.txt", None),
            ("a/../../secret.txt", None),
            ("/etc/passwd", None),
        ];
        for (path, expected) in cases {
            assert_eq!(normalise(path, &roots).as_deref(), expected, "{path:?}");
        }
        // Without roots (an older host) an absolute path lies under none.
        assert_eq!(normalise("/home/me/work/a", &[]), None);
    }

    #[test]
    fn every_spelling_of_a_denied_path_is_denied() {
        let g = guard("read_file:secret*,write_file:*.lock", "");
        for path in [
            "secret.txt",
            "./secret.txt",
            "a/../secret.txt",
            "/home/me/work/secret.txt",
            "/srv/second/./SECRET.md",
            "./Cargo.lock",
        ] {
            let tool = if path.ends_with(".lock") {
                "write_file"
            } else {
                "read_file"
            };
            assert!(denied(&g, tool, path), "{path}");
        }
        // `*` does not cross `/`: a secret in a subfolder is another file.
        assert!(!denied(&g, "read_file", "./docs/secret.txt"));
        // Outside the workspace no glob matches (the file tools refuse such paths).
        assert!(!denied(&g, "read_file", "../secret.txt"));
        assert!(!denied(&g, "read_file", "/home/me/workshop/secret.txt"));
    }

    /// Property over every path of up to five components drawn from `a`, `.`, `..` and the
    /// empty one, then `secret.txt`, with and without the root in front: the guard denies it
    /// exactly when the path stays inside the workspace and ends up at its top (an independent
    /// model: the depth never goes below zero and ends at 0).
    #[test]
    fn a_path_is_denied_exactly_when_it_resolves_to_the_denied_file() {
        let g = guard("read_file:secret*", "");
        let parts = ["a", ".", "..", ""];
        let mut checked = 0;
        for len in 0..=5u32 {
            for n in 0..parts.len().pow(len) {
                let mut chosen = Vec::new();
                let mut k = n;
                for _ in 0..len {
                    chosen.push(parts[k % parts.len()]);
                    k /= parts.len();
                }
                let mut depth = 0i32;
                let mut escaped = false;
                for part in &chosen {
                    match *part {
                        "a" => depth += 1,
                        ".." => {
                            depth -= 1;
                            escaped |= depth < 0;
                        }
                        _ => {}
                    }
                }
                let inside = !escaped && depth == 0;
                let relative = chosen
                    .iter()
                    .chain(std::iter::once(&"secret.txt"))
                    .copied()
                    .collect::<Vec<_>>()
                    .join("/");
                // A leading empty component makes the path absolute: `/secret.txt` is under
                // no root.
                let expected = inside && !relative.starts_with('/');
                assert_eq!(denied(&g, "read_file", &relative), expected, "{relative:?}");
                let absolute = format!("{ROOT}/{relative}");
                assert_eq!(denied(&g, "read_file", &absolute), inside, "{absolute:?}");
                checked += 2;
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn denies_and_rewrites_by_tool_and_path() {
        let g = guard("write_file:*.lock,grep:secret*,rm", "old/=>new/");
        assert!(matches!(
            g.judge("write_file", r#"{"path":"Cargo.lock"}"#),
            ToolAction::Deny(r) if r.contains("write_file:*.lock")
        ));
        assert!(matches!(
            g.judge("write_file", r#"{"path":"a.rs"}"#),
            ToolAction::Allow
        ));
        assert!(matches!(
            g.judge("grep", r#"{"path":"secrets.txt"}"#),
            ToolAction::Deny(_)
        ));
        assert!(matches!(g.judge("rm", "{}"), ToolAction::Deny(_)));
        match g.judge("read_file", r#"{"path":"./old/x.rs","limit":3}"#) {
            ToolAction::Rewrite(args) => {
                let v: Value = serde_json::from_str(&args).unwrap();
                assert_eq!(v["path"], "new/x.rs");
                assert_eq!(v["limit"], 3);
            }
            other => panic!("{other:?}"),
        }
        assert!(
            ToolGuard::from_config(&Config::from(vec![(
                "rewrite".to_owned(),
                "nope".to_owned()
            )]))
            .is_err()
        );
    }
}
