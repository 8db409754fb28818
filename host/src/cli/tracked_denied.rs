//! The warning that a workspace's git repository tracks files the deny globs deny: commands
//! cannot read them (the paths are covered), but git's objects hold their bytes, so `git show
//! HEAD:.env` prints what `cat .env` cannot. Said at `warden trust`, in `warden doctor` and once
//! when a `run` or `chat` session starts.

use std::path::Path;

use super::common::print_alert;
use crate::domain::Alert;
use crate::sandbox::tracked::tracked_denied;

/// Names listed before "and N more".
const LISTED: usize = 5;

/// The warning for the workspace at `root` under deny globs `deny`, if any (a repository
/// whose index cannot be read is said too).
pub(crate) fn tracked_denied_warning(root: &Path, deny: &[String]) -> Option<String> {
    match tracked_denied(root, deny) {
        Ok(paths) if paths.is_empty() => None,
        Ok(paths) => {
            let mut names: Vec<String> = paths.iter().take(LISTED).cloned().collect();
            if paths.len() > LISTED {
                names.push(format!("and {} more", paths.len() - LISTED));
            }
            Some(format!(
                "{} denied file(s) tracked by git: {}; commands cannot read them, but git's objects hold their bytes (`git show HEAD:<path>` prints them to any command that runs git); remove them from the repository and its history",
                paths.len(),
                names.join(", ")
            ))
        }
        Err(err) => Some(format!(
            "cannot tell whether git tracks denied files (the index is not read: {err})"
        )),
    }
}

/// Print the warning for `root`, once per process (the index is read once too).
pub(crate) fn warn_tracked_denied(root: &Path, deny: &[String]) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        if let Some(warning) = tracked_denied_warning(root, deny) {
            print_alert(&Alert::warn("sandbox", warning));
        }
    });
}
