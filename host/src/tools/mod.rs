//! The built-in tools that act on the workspace natively, beside `read_file` and `list_files`
//! (which run through the resolver): `write_file` and `edit_file`, which write, and `grep` and
//! `glob`, which search. Every path is held to the resolver's rules on the REAL path
//! ([`crate::confine::FsPolicy`]): the parent directory is opened inside the workspace root,
//! named by the kernel, checked, and the call then acts on that descriptor with the final name
//! only.
//!
//! - `workspace`: the roots, the policy, the caps the tools share.
//! - `path`: a path argument located in a root, its parent opened and checked.
//! - `atomic`: a file replaced through a temporary file and a rename.
//! - `write`, `edit`: the writing tools; `replace` the edit semantics.
//! - `search`: the walk shared by `grep` and `glob`; `grep`, `glob`: the searching tools.
//! - `restore`: what a write would replace, and putting it back (checkpoints, undo).
//! - `restore_meta`: permission bits and directories, put back by undo.
//! - `args`: argument parsing shared by the four.
//! - `plan`: `update_plan`, which sets the model's plan and touches no file.

mod args;
mod atomic;
mod edit;
mod error;
mod glob;
mod grep;
mod path;
mod plan;
mod replace;
mod restore;
mod restore_meta;
mod scan;
mod search;
mod walk;
mod workspace;
mod write;

use std::path::Path;
use std::sync::Arc;

use crate::config::FileRefConfig;
use crate::domain::Tool;

pub use edit::EditFile;
pub use error::ToolError;
pub use glob::Glob;
pub use grep::Grep;
pub use plan::UpdatePlan;
pub use replace::{EditRefusal, replace};
pub use restore::{
    Content, Snapshot, restore, restore_name, restore_name_with_mode, snapshot, snapshot_name,
};
pub use restore_meta::{file_mode, make_dir, set_file_mode};
pub use scan::{
    Bounds, DirDiff, FileDiff, SCAN_MAX_BYTES, SCAN_MAX_FILES, Scan, Seen, diff, dir_diff, scan,
};
pub use workspace::Workspace;
pub use write::WriteFile;

/// `write_file`, `edit_file`, `grep` and `glob` over `workspace`, under `config`'s deny globs
/// and caps, in the order they are offered.
pub fn workspace_tools(
    config: &FileRefConfig,
    workspace: &Path,
) -> Result<Vec<Box<dyn Tool>>, ToolError> {
    let ws = Arc::new(Workspace::open(&[workspace.to_path_buf()], config)?);
    Ok(vec![
        Box::new(WriteFile::new(Arc::clone(&ws))),
        Box::new(EditFile::new(Arc::clone(&ws))),
        Box::new(Grep::new(Arc::clone(&ws))),
        Box::new(Glob::new(ws)),
    ])
}
