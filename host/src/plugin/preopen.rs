//! The workspace as a plugin sees it: each root preopened at a guest path equal to its absolute
//! host path, with the permissions its grant gives (read-only for resolvers; the `fs` grant for
//! tool plugins), and `roots` (newline-separated) added to the `init` config.

use std::path::PathBuf;

use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use super::error::PluginError;
use super::state::{WasiFactory, closed_wasi};

/// The roots a plugin's WASI context preopens (none at all for a plugin without a grant).
pub(crate) struct Preopens {
    plugin: String,
    dirs: Vec<(PathBuf, String)>,
    perms: FsPerms,
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
        })
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
            wasi.build()
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
