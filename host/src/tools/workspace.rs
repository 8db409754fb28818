//! The workspace the tools act on: its roots (each opened once as a directory capability, so
//! no path can be resolved outside it), the real-path policy and the caps.

use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use warden_rules::deny::Deny;

use super::error::ToolError;
use crate::config::FileRefConfig;
use crate::confine::FsPolicy;
use crate::confine::real_path::real_path;

/// One workspace root.
#[derive(Debug)]
pub(crate) struct Root {
    /// As configured (absolute paths the model gives may use this spelling).
    pub(crate) given: PathBuf,
    /// Its real (canonical) path, as the kernel names it.
    pub(crate) real: PathBuf,
    /// The root opened: every lookup starts here and cannot leave it.
    pub(crate) dir: Dir,
}

/// The roots, the rules and the caps shared by the four tools.
#[derive(Debug)]
pub struct Workspace {
    pub(crate) roots: Vec<Root>,
    pub(crate) policy: FsPolicy,
    pub(crate) deny: Deny,
    /// Bytes of output one call may return.
    pub(crate) max_bytes: usize,
    /// Entries `glob` may return.
    pub(crate) max_entries: usize,
}

impl Workspace {
    /// The workspace over `roots` (the first is the one relative paths start from) under
    /// `config`'s deny globs and caps.
    pub fn open(roots: &[PathBuf], config: &FileRefConfig) -> Result<Self, ToolError> {
        let mut opened = Vec::new();
        for given in roots {
            let shown = given.display().to_string();
            let dir = Dir::open_ambient_dir(given, cap_std::ambient_authority())
                .map_err(|e| ToolError::io(&shown, e))?;
            let file = dir
                .try_clone()
                .map_err(|e| ToolError::io(&shown, e))?
                .into_std_file();
            // The kernel's own name: the same one every later check compares with.
            let real = real_path(&file).map_err(|e| ToolError::io(&shown, e))?;
            opened.push(Root {
                given: given.clone(),
                real,
                dir,
            });
        }
        if opened.is_empty() {
            return Err(ToolError::Other("no workspace root".to_owned()));
        }
        let reals: Vec<PathBuf> = opened.iter().map(|r| r.real.clone()).collect();
        let policy = FsPolicy::new(&reals, &config.deny).map_err(ToolError::Other)?;
        let deny = Deny::new(&config.deny).map_err(ToolError::Other)?;
        Ok(Self {
            roots: opened,
            policy,
            deny,
            max_bytes: usize::try_from(config.max_bytes).unwrap_or(usize::MAX),
            max_entries: usize::try_from(config.max_entries).unwrap_or(usize::MAX),
        })
    }

    /// How a real path is shown to the model: relative to the first root, absolute elsewhere.
    pub(crate) fn shown(&self, real: &Path) -> String {
        match self.roots.first().map(|r| real.strip_prefix(&r.real)) {
            Some(Ok(rel)) if rel.as_os_str().is_empty() => ".".to_owned(),
            Some(Ok(rel)) => rel.to_string_lossy().into_owned(),
            _ => real.to_string_lossy().into_owned(),
        }
    }
}
