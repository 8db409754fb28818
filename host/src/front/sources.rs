//! Where a front end reads configuration from: the process environment and the system
//! managed file, set once at start-up.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::config::{self, Sources};

/// Where this process looks for the system managed file; set once at start-up.
static SYSTEM_MANAGED: OnceLock<PathBuf> = OnceLock::new();

/// Set where the system managed file is (first call wins).
pub fn set_system_managed(path: PathBuf) {
    let _ = SYSTEM_MANAGED.set(path);
}

fn system_managed() -> &'static Path {
    SYSTEM_MANAGED
        .get()
        .map_or(Path::new(config::SYSTEM_MANAGED_PATH), PathBuf::as_path)
}

/// Reads the process environment.
pub fn env(var: &str) -> Option<String> {
    std::env::var(var).ok()
}

/// Where the configuration layers of `workspace` are read from.
pub fn sources(workspace: &Path) -> Sources {
    Sources::standard_with_system(workspace, &env, system_managed())
}
