//! The state root (`$WARDEN_HOME`, default `~/.local/state/warden`), where each session lives
//! (`sessions/<id>/`), and session ids: generated ones and the rules a caller's id must follow.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::StoreError;

/// Longest accepted session id, in bytes.
pub const MAX_ID_LEN: usize = 128;

/// File names inside a session directory.
pub(crate) const HISTORY_FILE: &str = "history.jsonl";
pub(crate) const AUDIT_FILE: &str = "audit.jsonl";
pub(crate) const LOCK_FILE: &str = "lock";
pub(crate) const INBOX_DIR: &str = "inbox";

/// The state root of warden: every session lives under `sessions/<id>/` below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// A state root at `root` (made absolute against the current directory).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let root = std::path::absolute(&root).unwrap_or(root);
        Self { root }
    }

    /// The state root from the environment: `$WARDEN_HOME`, else `$HOME/.local/state/warden`.
    pub fn from_env() -> Result<Self, StoreError> {
        Self::from_vars(std::env::var_os("WARDEN_HOME"), std::env::var_os("HOME"))
    }

    /// [`Home::from_env`] with the variables passed in; empty values count as unset.
    fn from_vars(
        warden_home: Option<OsString>,
        home: Option<OsString>,
    ) -> Result<Self, StoreError> {
        let set = |v: Option<OsString>| v.filter(|v| !v.is_empty());
        if let Some(root) = set(warden_home) {
            return Ok(Self::new(root));
        }
        let home = set(home).ok_or(StoreError::NoHome)?;
        Ok(Self::new(
            PathBuf::from(home)
                .join(".local")
                .join("state")
                .join("warden"),
        ))
    }

    /// The state root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory holding all sessions.
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// The directory of session `id` (which need not exist). Fails on an invalid id.
    pub fn session_dir(&self, id: &str) -> Result<PathBuf, StoreError> {
        validate_id(id)?;
        Ok(self.sessions_dir().join(id))
    }

    /// The history file of session `id`.
    pub fn history_path(&self, id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.session_dir(id)?.join(HISTORY_FILE))
    }

    /// The audit log of session `id`.
    pub fn audit_path(&self, id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.session_dir(id)?.join(AUDIT_FILE))
    }

    /// The notification inbox directory of session `id`.
    pub fn inbox_dir(&self, id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.session_dir(id)?.join(INBOX_DIR))
    }

    /// True when session `id` exists (its history file is there).
    pub fn session_exists(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.history_path(id)?.is_file())
    }

    /// The history path of an existing session, or [`StoreError::NotFound`].
    pub(crate) fn existing_history(&self, id: &str) -> Result<PathBuf, StoreError> {
        let path = self.history_path(id)?;
        if path.is_file() {
            Ok(path)
        } else {
            Err(StoreError::NotFound {
                id: id.to_owned(),
                path,
            })
        }
    }
}

/// A fresh session id: a UUID v7, so ids sort by creation time.
pub fn new_session_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Checks that `id` can name a session directory: 1 to [`MAX_ID_LEN`] bytes of ASCII letters,
/// digits, `-`, `_` and `.`, not starting with `.` and without `..`.
pub fn validate_id(id: &str) -> Result<(), StoreError> {
    let reason = if id.is_empty() {
        Some("it is empty")
    } else if id.len() > MAX_ID_LEN {
        Some("it is longer than 128 bytes")
    } else if id.starts_with('.') {
        Some("it starts with '.'")
    } else if id.contains("..") {
        Some("it contains '..'")
    } else if id.chars().any(|c| c == '/' || c == '\\') {
        Some("it contains a path separator")
    } else if id.chars().any(char::is_control) {
        Some("it contains a control character")
    } else if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        Some("only ASCII letters, digits, '-', '_' and '.' are allowed")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(StoreError::InvalidId {
            id: id.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_validated() {
        for good in ["a", "0190-abc", "my_session.2", &"x".repeat(MAX_ID_LEN)] {
            assert!(validate_id(good).is_ok(), "{good:?} should be accepted");
        }
        let long = "x".repeat(MAX_ID_LEN + 1);
        for bad in [
            "", ".", "..", ".hidden", "a/b", "a\\b", "a..b", "../etc", "a\nb", "a\0b", "é", "a b",
            &long,
        ] {
            let err = validate_id(bad).err();
            assert!(
                matches!(err, Some(StoreError::InvalidId { .. })),
                "{bad:?} should be refused, got {err:?}"
            );
        }
        let msg = validate_id("a/b")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            msg.contains("\"a/b\"") && msg.contains("path separator"),
            "{msg}"
        );
    }

    #[test]
    fn generated_ids_are_valid_and_sort_by_creation() {
        let ids: Vec<String> = (0..50).map(|_| new_session_id()).collect();
        for id in &ids {
            assert!(validate_id(id).is_ok(), "{id}");
        }
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(sorted, ids);
    }

    #[test]
    fn home_comes_from_warden_home_then_home() {
        let h = Home::from_vars(Some("/w".into()), Some("/h".into())).ok();
        assert_eq!(h.map(|h| h.root().to_owned()), Some(PathBuf::from("/w")));
        let h = Home::from_vars(Some("".into()), Some("/h".into())).ok();
        assert_eq!(
            h.map(|h| h.root().to_owned()),
            Some(PathBuf::from("/h/.local/state/warden"))
        );
        let err = Home::from_vars(None, None).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("WARDEN_HOME")));
    }

    #[test]
    fn session_paths_refuse_bad_ids() {
        let home = Home::new("/w");
        assert!(home.session_dir("../x").is_err());
        assert_eq!(
            home.history_path("s1").ok(),
            Some(PathBuf::from("/w/sessions/s1/history.jsonl"))
        );
    }
}
