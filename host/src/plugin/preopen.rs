//! The workspace as a plugin sees it: each root preopened at a guest path equal to its absolute
//! host path, with the permissions its grant gives (read-only for resolvers; the `fs` grant for
//! tool plugins), and `roots` (newline-separated) added to the `init` config. A guarded
//! plugin's preopens are served through the filesystem guard (see [`super::fs_guard`]).

use std::path::PathBuf;
use std::sync::Arc;

use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use super::error::PluginError;
use super::fs_guard::{FsGuard, FsPolicy};
use super::state::{WasiFactory, closed_wasi};
use crate::confine::real_path::probe;

/// The roots a plugin's WASI context preopens (none at all for a plugin without a grant).
pub(crate) struct Preopens {
    plugin: String,
    dirs: Vec<(PathBuf, String)>,
    perms: FsPerms,
    /// The guard's policy, for a guarded plugin.
    policy: Option<Arc<FsPolicy>>,
}

impl Preopens {
    /// `roots` preopened with `perms`, or nothing when `perms` is `None`. A root whose path
    /// is not UTF-8 cannot be named inside the guest and is refused.
    pub(crate) fn new(
        plugin: &str,
        roots: &[PathBuf],
        perms: Option<FsPerms>,
    ) -> Result<Self, PluginError> {
        let Some(perms) = perms else {
            return Ok(Self {
                plugin: plugin.to_owned(),
                dirs: Vec::new(),
                perms: FsPerms::ReadOnly,
                policy: None,
            });
        };
        let mut dirs = Vec::with_capacity(roots.len());
        for root in roots {
            let guest = root.to_str().ok_or_else(|| PluginError::Load {
                plugin: plugin.to_owned(),
                stage: "preopen",
                message: format!("{}: workspace root is not valid UTF-8", root.display()),
            })?;
            dirs.push((root.clone(), guest.to_owned()));
        }
        Ok(Self {
            plugin: plugin.to_owned(),
            dirs,
            perms,
            policy: None,
        })
    }

    /// These preopens served through the filesystem guard, holding the plugin to the deny
    /// `globs` and the protected directories on real paths. Where the real path of an open
    /// file cannot be known (no `/proc`, not Linux) the grant is refused: never served
    /// unchecked.
    pub(crate) fn guarded(mut self, globs: &[String]) -> Result<Self, PluginError> {
        if self.dirs.is_empty() {
            return Ok(self);
        }
        let refuse = |stage: &'static str, message: String| PluginError::Load {
            plugin: self.plugin.clone(),
            stage,
            message,
        };
        let roots = self
            .dirs
            .iter()
            .map(|(root, _)| probe(root).map_err(|message| refuse("fs guard", message)))
            .collect::<Result<Vec<PathBuf>, PluginError>>()?;
        let policy =
            FsPolicy::new(&roots, globs).map_err(|message| refuse("deny globs", message))?;
        self.policy = Some(Arc::new(policy));
        Ok(self)
    }

    /// The WASI factory: [`closed_wasi`] with stderr captured, blocking file I/O allowed on
    /// the calling thread, `env` set, and these roots preopened.
    pub(crate) fn factory(self, env: Vec<(String, String)>) -> WasiFactory {
        Box::new(move |stderr| {
            let mut wasi = closed_wasi();
            wasi.stderr(stderr).allow_blocking_current_thread(true);
            for (key, value) in &env {
                wasi.env(key, value);
            }
            self.apply(&mut wasi);
            let guard = self
                .policy
                .as_ref()
                .map(|policy| FsGuard::new(&self.plugin, Arc::clone(policy)));
            (wasi.build(), guard)
        })
    }

    fn apply(&self, wasi: &mut WasiCtxBuilder) {
        for (host, guest) in &self.dirs {
            if let Err(err) = wasi.preopened_dir(host, guest, self.perms) {
                tracing::warn!(plugin = %self.plugin, root = %host.display(), "cannot preopen workspace root: {err:#}");
            }
        }
    }
}

/// `config` with `roots` (the workspace roots, newline-separated) in place of any `roots` the
/// entry set. Every world gets it: tool plugins and resolvers to find their preopened
/// directories, interceptors and hooks to judge a path argument against the workspace (they
/// get no filesystem).
pub fn with_roots(mut config: Vec<(String, String)>, roots: &[PathBuf]) -> Vec<(String, String)> {
    config.retain(|(k, _)| k != "roots");
    config.push((
        "roots".into(),
        roots
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    ));
    config
}
