//! Sample tool plugin: `put_file` and `replace_in_file`, inside the workspace only. (Named
//! apart from the built-in `write_file` and `edit_file`: a plugin may not take a built-in's name.)
//!
//! Needs `fs = "read-write"` in its `[[plugins]]` entry. Refuses absolute paths, `..`, the deny
//! globs of warden's defaults and the config's `deny` (comma-separated), and the protected
//! directories (`.warden/`: a configuration change is proposed to the person, never written;
//! `.git/`). The host enforces the same on real paths (through symlinks too), so a refusal here
//! is only the friendlier one.
//!
//! - `put_file {path, content}`: create or replace a file (parent directories are created).
//! - `replace_in_file {path, old, new, all?}`: replace `old` by `new`; `old` must occur exactly
//!   once unless `all` is true.

use serde_json::Value;
use warden_plugin::Config;
use warden_plugin::tool::{Tool, ToolOutput, ToolSpec};
use warden_plugin::workspace::Workspace;

/// Largest file written or edited.
const MAX_FILE_BYTES: usize = 1 << 20;

/// The edit tools.
pub struct Edit {
    workspace: Workspace,
}

/// An I/O error on `path`, saying what a refusal by the host means.
fn io_error(path: &str, err: &std::io::Error) -> String {
    if err.kind() == std::io::ErrorKind::PermissionDenied {
        format!(
            "{path}: refused by the host ({err}): a protected (`.warden/`, `.git/`) or denied \
             path, or a write through a symlink; a configuration change is proposed to the \
             person, never written"
        )
    } else {
        format!("{path}: {err}")
    }
}

fn string<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing string argument `{key}`"))
}

impl Edit {
    /// Edit tools over `workspace`.
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }

    /// `put_file`.
    pub fn put_file(&self, path: &str, content: &str) -> Result<String, String> {
        if content.len() > MAX_FILE_BYTES {
            return Err(format!("content over {MAX_FILE_BYTES} bytes"));
        }
        let target = self.workspace.resolve_for_write(path)?;
        if target.relative.is_empty() {
            return Err(format!("{path}: is the workspace root"));
        }
        if let Some(parent) = target.full.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_error(path, &e))?;
        }
        std::fs::write(&target.full, content).map_err(|e| io_error(path, &e))?;
        Ok(format!(
            "wrote {} bytes to {}",
            content.len(),
            target.relative
        ))
    }

    /// `replace_in_file`.
    pub fn replace_in_file(
        &self,
        path: &str,
        old: &str,
        new: &str,
        all: bool,
    ) -> Result<String, String> {
        if old.is_empty() {
            return Err("`old` must not be empty".to_owned());
        }
        let target = self.workspace.resolve_for_write(path)?;
        let text =
            warden_plugin::fs::read_to_string(&target.full).map_err(|e| io_error(path, &e))?;
        let count = text.matches(old).count();
        if count == 0 {
            return Err(format!("{path}: `old` does not occur in the file"));
        }
        if count > 1 && !all {
            return Err(format!(
                "{path}: `old` occurs {count} times; give more context or set `all`"
            ));
        }
        let edited = text.replace(old, new);
        if edited.len() > MAX_FILE_BYTES {
            return Err(format!(
                "the edited file would be over {MAX_FILE_BYTES} bytes"
            ));
        }
        std::fs::write(&target.full, &edited).map_err(|e| io_error(path, &e))?;
        Ok(format!(
            "replaced {count} occurrence{} in {}",
            if count == 1 { "" } else { "s" },
            target.relative
        ))
    }
}

impl Tool for Edit {
    fn init(config: Config) -> Result<Self, String> {
        Ok(Self::new(Workspace::from_config(
            &config,
            warden_defaults::DEFAULT_DENY,
        )?))
    }

    fn describe(&self) -> Vec<ToolSpec> {
        vec![
            ToolSpec::new(
                "put_file",
                "Create or replace a text file in the workspace (path relative to the root).",
                r#"{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}"#,
            ),
            ToolSpec::new(
                "replace_in_file",
                "Replace text in a workspace file: `old` must occur exactly once unless `all` is true.",
                r#"{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"},"all":{"type":"boolean"}},"required":["path","old","new"]}"#,
            ),
        ]
    }

    fn call(&mut self, name: &str, arguments: &str) -> Result<ToolOutput, String> {
        let args: Value =
            serde_json::from_str(arguments).map_err(|e| format!("bad arguments: {e}"))?;
        let text = match name {
            "put_file" => self.put_file(string(&args, "path")?, string(&args, "content")?)?,
            "replace_in_file" => self.replace_in_file(
                string(&args, "path")?,
                string(&args, "old")?,
                string(&args, "new")?,
                args.get("all").and_then(Value::as_bool).unwrap_or(false),
            )?,
            other => return Err(format!("unknown tool `{other}`")),
        };
        Ok(ToolOutput::text(text))
    }
}

#[cfg(target_arch = "wasm32")]
warden_plugin::export_tool!(Edit);

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(dir: &std::path::Path) -> Edit {
        let config = Config::from(vec![(
            "roots".to_owned(),
            dir.to_string_lossy().into_owned(),
        )]);
        Edit::init(config).unwrap()
    }

    #[test]
    fn writes_and_replaces_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let e = edit(dir.path());
        e.put_file("src/new.txt", "one two two").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/new.txt")).unwrap(),
            "one two two"
        );
        assert!(e.replace_in_file("src/new.txt", "two", "2", false).is_err());
        e.replace_in_file("src/new.txt", "one", "1", false).unwrap();
        e.replace_in_file("src/new.txt", "two", "2", true).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/new.txt")).unwrap(),
            "1 2 2"
        );
    }

    #[test]
    fn refuses_paths_outside_and_denied() {
        let dir = tempfile::tempdir().unwrap();
        let e = edit(dir.path());
        for bad in [
            "../escape.txt",
            "/tmp/abs.txt",
            ".env",
            "keys/server.pem",
            ".git/config",
            ".warden/config.toml",
        ] {
            assert!(e.put_file(bad, "x").is_err(), "{bad}");
        }
        assert!(!dir.path().join(".env").exists());
    }
}
