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
}
