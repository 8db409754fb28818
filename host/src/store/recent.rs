//! The most recent session of a workspace, for `--continue`.

use std::path::Path;
use std::time::SystemTime;

use super::error::StoreError;
use super::home::Home;
use super::load::list;

/// The id of the session of `workspace` whose history was written last (`None` when the
/// workspace has no readable session).
pub fn latest_for_workspace(home: &Home, workspace: &Path) -> Result<Option<String>, StoreError> {
    let mut best: Option<(SystemTime, String)> = None;
    for summary in list(home)? {
        if summary.problem.is_some() || summary.workspace != workspace {
            continue;
        }
        let written = home
            .history_path(&summary.id)
            .ok()
            .and_then(|p| std::fs::metadata(p).ok())
            .and_then(|m| m.modified().ok())
            .unwrap_or(summary.created);
        let newer = best
            .as_ref()
            .is_none_or(|(t, id)| (written, &summary.id) > (*t, id));
        if newer {
            best = Some((written, summary.id));
        }
    }
    Ok(best.map(|(_, id)| id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Item, Source};
    use crate::store::SessionWriter;

    #[test]
    fn picks_the_last_written_session_of_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path().join("home"));
        let here = dir.path().join("here");
        let there = dir.path().join("there");
        assert_eq!(latest_for_workspace(&home, &here).unwrap(), None);
        let mut old = SessionWriter::create(&home, Some("old"), &here).unwrap();
        let _new = SessionWriter::create(&home, Some("new"), &here).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let _other = SessionWriter::create(&home, Some("other"), &there).unwrap();
        // Writing to the older session makes it the most recent one.
        std::thread::sleep(std::time::Duration::from_millis(20));
        old.commit(&[(Source::User, Item::user("hi"))]).unwrap();
        assert_eq!(
            latest_for_workspace(&home, &here).unwrap().as_deref(),
            Some("old")
        );
        assert_eq!(
            latest_for_workspace(&home, &there).unwrap().as_deref(),
            Some("other")
        );
    }
}
