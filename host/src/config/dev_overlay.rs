//! The dev overlay: `[[plugins]]` entries that `warden plugin dev` writes for one workspace into
//! the user's state (`$WARDEN_HOME/plugin-dev/<key>.toml`), never into a config file. It is
//! read as a second user layer, right after the user config: its entries are the user's, so
//! they need no trust; an entry takes the place of a user or project entry of the same name
//! (the project's declaration of it then waits for trust as it was last trusted, or not at
//! all), and managed policy applies to it as to any plugin. Only `[[plugins]]` is read from it.

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
