//! The dev overlay: `[[plugins]]` entries that `warden plugin dev` writes for one workspace into
//! the user's state (`$WARDEN_HOME/plugin-dev/<key>.toml`), never into a config file. It is
//! read as a second user layer, right after the user config: its entries are the user's, so
//! they need no trust; an entry takes the place of a user or project entry of the same name
//! (the project's declaration of it then waits for trust as it was last trusted, or not at
//! all), and managed policy applies to it as to any plugin. Only `[[plugins]]` and the resolver
//! keys of `[fileref]` (a resolver under development, pinned by `resolver_sha256`, which takes
//! the place of the project's resolver) are read from it.
//!
//! Each entry carries the `sha256` of the build `warden plugin dev` accepted (when it started,
//! and per rebuild its watcher saw): a run or a chat loads the file only while it still has
//! that digest. The file lives in the workspace, where the model's commands and tools can write;
//! the overlay lives in the user's state, where they cannot. So a build a command or a tool
//! put in place of the accepted one is refused (see `dev_build_not_accepted`), never loaded
//! with the dev entry's grants.
//!
//! A session that sees a tool call, a command or an MCP server write a dev build's file
//! records the entry's name beside the overlay (`<key>.written`, see [`record_written`]); from
//! then on the entry's build is refused whatever its digest, and the watcher of
//! `warden plugin dev` accepts no rebuild of it, until the person runs `warden plugin dev` for
//! it again. This closes the window where a watcher sees the model's file before the session
//! has said who wrote it.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The directory of the overlays, under the state root.
pub const DEV_DIR: &str = "plugin-dev";

/// The state root: `$WARDEN_HOME`, else `$HOME/.local/state/warden`.
fn state_root(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(root) = env("WARDEN_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(root));
    }
    env("HOME")
        .filter(|v| !v.is_empty())
        .map(|home| PathBuf::from(home).join(".local/state/warden"))
}

/// The overlay file of `workspace` (whether it exists or not).
pub fn dev_overlay_path(workspace: &Path, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let root = state_root(env)?;
    let digest = Sha256::digest(workspace.to_string_lossy().as_bytes());
    let key = hex::encode(&digest[..8]);
    Some(root.join(DEV_DIR).join(format!("{key}.toml")))
}

/// The file beside `overlay` that names the entries whose build a session saw written.
pub fn written_path(overlay: &Path) -> PathBuf {
    overlay.with_extension("written")
}

/// Whether a session saw a tool call, a command or an MCP server write the build of entry
/// `name` of `overlay` since `warden plugin dev` last accepted it.
pub fn written_in_session(overlay: &Path, name: &str) -> bool {
    std::fs::read_to_string(written_path(overlay))
        .is_ok_and(|text| text.lines().any(|line| line == name))
}

/// Record that a session saw the build of entry `name` of `overlay` written (appended: a
/// session only ever adds names; `warden plugin dev` removes one when it accepts the build).
pub fn record_written(overlay: &Path, name: &str) -> std::io::Result<()> {
    use std::io::Write;
    if written_in_session(overlay, name) {
        return Ok(());
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(written_path(overlay))?;
    file.write_all(format!("{name}\n").as_bytes())
}

/// Forget that a session wrote the build of `name` (the person accepted it again).
pub fn clear_written(overlay: &Path, name: &str) -> std::io::Result<()> {
    let path = written_path(overlay);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(err),
    };
    let kept: String = text
        .lines()
        .filter(|line| *line != name && !line.is_empty())
        .map(|line| format!("{line}\n"))
        .collect();
    if kept.is_empty() {
        std::fs::remove_file(&path)
    } else {
        std::fs::write(&path, kept)
    }
}

/// The digest of the build the overlay at `overlay` records as accepted for entry `name`, if
/// the overlay holds that entry with a digest and no session saw the build written since (read
/// anew each time: the watcher of `warden plugin dev` records each rebuild it accepts).
pub fn accepted_digest(overlay: &Path, name: &str) -> Option<String> {
    if written_in_session(overlay, name) {
        return None;
    }
    recorded_digest(overlay, name)
}

/// The digest the overlay at `overlay` records for entry `name`, whether or not a session saw
/// the build written since.
pub fn recorded_digest(overlay: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(overlay).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    table
        .get("plugins")?
        .as_array()?
        .iter()
        .filter_map(toml::Value::as_table)
        .find(|t| t.get("name").and_then(toml::Value::as_str) == Some(name))?
        .get("sha256")?
        .as_str()
        .map(str::to_owned)
}

/// The name under which a resolver under development is recorded as written in a session.
pub const DEV_RESOLVER: &str = "fileref.resolver";

/// The resolver file the overlay at `overlay` loads, if it holds one.
pub fn dev_resolver(overlay: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(overlay).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    table
        .get("fileref")?
        .get("resolver")?
        .as_str()
        .map(PathBuf::from)
}

/// Whether `declared_in` is a dev overlay file (a `*.toml` right under [`DEV_DIR`]).
pub fn is_dev_overlay(declared_in: &Path) -> bool {
    declared_in
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|dir| dir == DEV_DIR)
        && declared_in.extension().is_some_and(|ext| ext == "toml")
}

/// Why a dev build whose file is not the build `warden plugin dev` accepted is not loaded:
/// `found` is the file's digest now, `accepted` the overlay's (none for an entry written
/// before digests were recorded).
pub fn dev_build_not_accepted(
    name: &str,
    file: &Path,
    accepted: Option<&str>,
    found: &str,
    written: bool,
) -> String {
    let accepted = accepted.map_or_else(
        || "none recorded".to_owned(),
        |digest| format!("sha256 {digest}"),
    );
    let who = if written {
        "a tool call, a command or an MCP server wrote it during a session"
    } else {
        "a command or a tool may have replaced it"
    };
    format!(
        "{} is not the build `warden plugin dev` accepted ({accepted}; the file \
         now has sha256 {found}), so it is not loaded: {who}. \
         If you built it, accept it with `warden plugin dev {}` (its watcher accepts each rebuild \
         it sees), or end the dev build with `warden plugin dev --stop --name {name}`",
        file.display(),
        file.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_per_workspace_under_the_state_root() {
        let env = |k: &str| (k == "WARDEN_HOME").then(|| "/state".to_owned());
        let a = dev_overlay_path(Path::new("/w/a"), &env).unwrap();
        let b = dev_overlay_path(Path::new("/w/b"), &env).unwrap();
        assert!(a.starts_with("/state/plugin-dev"));
        assert_ne!(a, b);
        assert_eq!(a, dev_overlay_path(Path::new("/w/a"), &env).unwrap());
        let env = |k: &str| (k == "HOME").then(|| "/home/u".to_owned());
        assert!(
            dev_overlay_path(Path::new("/w/a"), &env)
                .unwrap()
                .starts_with("/home/u/.local/state/warden/plugin-dev")
        );
        assert_eq!(dev_overlay_path(Path::new("/w"), &|_| None), None);
    }

    #[test]
    fn an_overlay_file_is_a_toml_file_right_under_the_dev_dir() {
        assert!(is_dev_overlay(Path::new("/s/plugin-dev/0123.toml")));
        assert!(!is_dev_overlay(Path::new("/s/plugin-dev/0123.txt")));
        assert!(!is_dev_overlay(Path::new("/s/.warden/config.toml")));
        assert!(!is_dev_overlay(Path::new("/s/plugin-dev/x/0123.toml")));
    }

    #[test]
    fn the_accepted_digest_is_read_from_the_named_entry() {
        let dir = tempfile::tempdir().unwrap();
        let overlay = dir.path().join("k.toml");
        assert_eq!(accepted_digest(&overlay, "a"), None);
        std::fs::write(
            &overlay,
            "[[plugins]]\nname = \"a\"\nsha256 = \"aa\"\n[[plugins]]\nname = \"b\"\n",
        )
        .unwrap();
        assert_eq!(accepted_digest(&overlay, "a").as_deref(), Some("aa"));
        assert_eq!(accepted_digest(&overlay, "b"), None);
        assert_eq!(accepted_digest(&overlay, "c"), None);
        // Written in a session: nothing is accepted until `plugin dev` clears it.
        record_written(&overlay, "a").unwrap();
        record_written(&overlay, "a").unwrap();
        record_written(&overlay, "b").unwrap();
        assert!(written_in_session(&overlay, "a"));
        assert_eq!(accepted_digest(&overlay, "a"), None);
        clear_written(&overlay, "a").unwrap();
        assert_eq!(accepted_digest(&overlay, "a").as_deref(), Some("aa"));
        assert!(written_in_session(&overlay, "b"));
        clear_written(&overlay, "b").unwrap();
        assert!(!written_path(&overlay).exists());
    }

    #[test]
    fn the_overlay_is_a_user_layer_of_plugins_only_that_takes_the_place_of_an_entry() {
        use crate::config::{LayerKind, Sources, load};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        };
        let entry = |name: &str, path: &str| {
            format!("[[plugins]]\nname = \"{name}\"\nkind = \"interceptor\"\npath = \"{path}\"\n")
        };
        let user = write("user.toml", "");
        let dev = write(
            "state/plugin-dev/k.toml",
            &format!(
                "[tools]\nmode = \"full-auto\"\n\n{}",
                entry("guard", "builtin:keyword-context")
            ),
        );
        let project = write(
            "ws/.warden/config.toml",
            &format!(
                "{}{}",
                entry("guard", "builtin:pattern-guard"),
                entry("other", "builtin:tool-guard")
            ),
        );
        let sources = Sources {
            layers: vec![
                (LayerKind::User, user),
                (LayerKind::User, dev.clone()),
                (LayerKind::Project, project),
            ],
            managed_is_system: false,
            notes: Vec::new(),
        };
        let loaded = load(&sources).unwrap();
        let plugins: Vec<(&str, String, &str)> = loaded
            .config
            .plugins
            .iter()
            .map(|e| {
                (
                    e.name.as_str(),
                    e.path.display().to_string(),
                    e.origin.as_str(),
                )
            })
            .collect();
        assert_eq!(
            plugins,
            [
                ("guard", "builtin:keyword-context".to_owned(), "user"),
                ("other", "builtin:tool-guard".to_owned(), "project"),
            ]
        );
        assert_eq!(
            loaded.config.plugins[0].declared_in.as_deref(),
            Some(dev.as_path())
        );
        assert_eq!(loaded.dev_overrides, ["guard"]);
        // Only `[[plugins]]` is read from the overlay.
        assert_eq!(loaded.config.tools.mode, crate::domain::Mode::default());
        // The project's own `guard` is not part of what waits for trust.
        let code = loaded.project_code.unwrap();
        let names: Vec<&str> = code.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["other"]);
        assert!(loaded.warnings.iter().any(|w| w.contains("is a dev build")));
    }
}
