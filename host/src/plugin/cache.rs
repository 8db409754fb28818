//! The on-disk cache of compiled plugin code.
//!
//! An entry is keyed by the engine's `precompile_compatibility_hash()` (the directory) and the
//! sha256 of the component bytes (the file name), and written atomically (temporary file,
//! fsync, rename), so a reader sees a whole entry or none. Only files this cache wrote are ever
//! deserialized: the path is derived from the two keys, never taken from outside. wasmtime
//! checks each artifact's header (engine version and configuration) and refuses a foreign or
//! damaged one, which is then deleted and recompiled. The cache is trusted exactly as much as
//! the state directory that holds it (see docs/security.md).
//!
//! Compiling a large component (a Python or JavaScript one embeds an interpreter: 12–18 MB)
//! takes seconds; when the cache misses on one, [`CompileNotice`] says so once on stderr after
//! [`NOTICE_AFTER`] if the front end asked for it ([`announce_slow_compiles`]).
//! [`usage`] and [`clear`] serve `warden operator doctor` and `warden plugin cache clear`.

#![allow(unsafe_code)]

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The compiled-code cache of one engine configuration.
#[derive(Debug)]
pub(crate) struct CompileCache {
    dir: PathBuf,
}

/// Feeds `Hash` output into sha256 so the key is stable across processes.
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

impl CompileCache {
    /// The cache under `root`, in a subdirectory for this engine's configuration.
    pub(crate) fn new(root: PathBuf, engine: &Engine) -> Self {
        let mut hasher = ShaHasher(Sha256::new());
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let engine_key = hex::encode(&hasher.0.finalize()[..16]);
        Self {
            dir: root.join(engine_key),
        }
    }

    fn entry(&self, sha256: &str) -> Option<PathBuf> {
        // The component digest is ours (computed from the bytes); refuse anything else as a name.
        let valid = sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit());
        valid.then(|| self.dir.join(format!("{sha256}.cwasm")))
    }

    /// The cached compiled code of the component with this digest, if present and accepted.
    pub(crate) fn load(&self, engine: &Engine, sha256: &str) -> Option<Component> {
        let path = self.entry(sha256)?;
        if !path.is_file() {
            return None;
        }
        // SAFETY: the file was produced by `Engine::precompile_component` of an engine with the
        // same compatibility hash (the directory key) and written whole by `store` below (atomic
        // rename); it is mapped, not copied. wasmtime checks the engine version and
        // configuration recorded in the artifact and refuses anything else.
        match unsafe { Component::deserialize_file(engine, &path) } {
            Ok(component) => Some(component),
            Err(err) => {
                discard(&path, &format!("{err:#}"));
                None
            }
        }
    }

    /// Write the artifact for the component with this digest.
    pub(crate) fn store(&self, sha256: &str, artifact: &[u8]) -> std::io::Result<()> {
        let Some(path) = self.entry(sha256) else {
            return Ok(());
        };
        std::fs::create_dir_all(&self.dir)?;
        let (tmp_path, mut tmp) = tempfile_in(&self.dir)?;
        tmp.write_all(artifact)?;
        tmp.sync_data()?;
        drop(tmp);
        std::fs::rename(&tmp_path, &path)
    }
}

/// Components smaller than this compile in about a second at most: no notice (the built-in
/// resolver and the Rust samples are 0.3–1.1 MB; Python and JavaScript components 12–18 MB).
pub(crate) const NOTICE_MIN_BYTES: usize = 4 << 20;

/// How long a compile runs before the notice is printed.
pub(crate) const NOTICE_AFTER: Duration = Duration::from_secs(1);

/// Where the notice goes; unset (the default) prints nothing.
static NOTICE: OnceLock<fn(&str)> = OnceLock::new();

/// Print a one-line notice through `print` when compiling a large component (a cache miss)
/// takes longer than [`NOTICE_AFTER`]. Set once per process by the front end, for commands
/// whose stderr a person reads (not `--json`, not the full-screen chat).
pub fn announce_slow_compiles(print: fn(&str)) {
    let _ = NOTICE.set(print);
}

/// The notice of one compile: armed while it runs, silent when dropped before its time.
pub(crate) struct CompileNotice {
    _done: Option<mpsc::Sender<()>>,
}

impl CompileNotice {
    /// Arm the notice for compiling `plugin`'s component of `bytes` bytes; `cached` when the
    /// result goes to the on-disk cache.
    pub(crate) fn start(plugin: &str, bytes: usize, cached: bool) -> Self {
        let Some(print) = NOTICE.get().copied() else {
            return Self { _done: None };
        };
        if bytes < NOTICE_MIN_BYTES {
            return Self { _done: None };
        }
        let (done, wait) = mpsc::channel::<()>();
        let line = notice_line(plugin, bytes, cached);
        let spawned = std::thread::Builder::new()
            .name("warden-compile-notice".into())
            .spawn(move || {
                if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(NOTICE_AFTER) {
                    print(&line);
                }
            });
        // Without the thread there is no notice; the compile goes on.
        Self {
            _done: spawned.ok().map(|_| done),
        }
    }
}

/// `compiling NAME (18.3 MB), once; later starts use the cache`, or, where the command keeps
/// no cache (`plugin replay`), `…; this command does not cache compiled code`.
pub(crate) fn notice_line(plugin: &str, bytes: usize, cached: bool) -> String {
    #[allow(clippy::cast_precision_loss)]
    let mb = bytes as f64 / 1e6;
    let tail = if cached {
        ", once; later starts use the cache"
    } else {
        "; this command does not cache compiled code"
    };
    format!(
        "compiling {} ({mb:.1} MB){tail}",
        crate::domain::escape::escape(plugin)
    )
}

/// What the compiled-code cache under a root holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUsage {
    /// Compiled components (`.cwasm` files), of every engine configuration.
    pub entries: u64,
    /// Their total size in bytes.
    pub bytes: u64,
}

/// The entries under `root` (the cache directory; absent is empty).
pub fn usage(root: &Path) -> std::io::Result<CacheUsage> {
    let mut usage = CacheUsage::default();
    for (_, meta) in entries(root)? {
        usage.entries += 1;
        usage.bytes += meta.len();
    }
    Ok(usage)
}

/// Remove every entry under `root` (of every engine configuration); what was removed.
pub fn clear(root: &Path) -> std::io::Result<CacheUsage> {
    let mut removed = CacheUsage::default();
    for (path, meta) in entries(root)? {
        std::fs::remove_file(&path)?;
        removed.entries += 1;
        removed.bytes += meta.len();
    }
    Ok(removed)
}

/// The regular `.cwasm` and leftover `.tmp-*` files one level below `root` (the engine
/// directories). Symlinks are neither followed nor counted.
fn entries(root: &Path) -> std::io::Result<Vec<(PathBuf, std::fs::Metadata)>> {
    let mut out = Vec::new();
    let dirs = match std::fs::read_dir(root) {
        Ok(dirs) => dirs,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(err) => return Err(err),
    };
    for dir in dirs {
        let dir = dir?;
        if !dir.file_type()?.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(dir.path())? {
            let file = file?;
            let name = file.file_name();
            let name = name.to_string_lossy();
            let ours = name.ends_with(".cwasm") || name.starts_with(".tmp-");
            let meta = file.metadata()?;
            if ours && meta.is_file() {
                out.push((file.path(), meta));
            }
        }
    }
    Ok(out)
}

/// Deserialize an artifact this process just produced with `Engine::precompile_component`.
pub(crate) fn from_fresh_artifact(engine: &Engine, artifact: &[u8]) -> wasmtime::Result<Component> {
    // SAFETY: `artifact` comes straight from `precompile_component` on this very engine, in
    // memory; it was never outside the process.
    unsafe { Component::deserialize(engine, artifact) }
}

fn discard(path: &Path, why: &str) {
    tracing::warn!(path = %path.display(), "discarding compiled-code cache entry: {why}");
    let _ = std::fs::remove_file(path);
}

fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let name = format!(
        ".tmp-{}-{}",
        std::process::id(),
        uuid::Uuid::now_v7().simple()
    );
    let path = dir.join(name);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    Ok((path, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_and_clear_removes_only_cache_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("compiled");
        assert_eq!(usage(&root).unwrap(), CacheUsage::default());
        let engine = root.join("0123abcd");
        std::fs::create_dir_all(&engine).unwrap();
        std::fs::write(engine.join(format!("{}.cwasm", "a".repeat(64))), [0u8; 100]).unwrap();
        std::fs::write(engine.join(format!("{}.cwasm", "b".repeat(64))), [0u8; 50]).unwrap();
        std::fs::write(engine.join("notes.txt"), "not ours").unwrap();
        assert_eq!(
            usage(&root).unwrap(),
            CacheUsage {
                entries: 2,
                bytes: 150
            }
        );
        assert_eq!(clear(&root).unwrap().entries, 2);
        assert_eq!(usage(&root).unwrap(), CacheUsage::default());
        assert!(engine.join("notes.txt").is_file());
    }

    /// An artifact the previous engine (wasmtime 48) wrote, found under this engine's key, and a
    /// damaged one: each is a miss (refused by its header, removed), never a crash.
    #[test]
    fn an_older_engines_or_a_damaged_entry_is_a_miss_and_removed() {
        let old = include_bytes!("../../../tests/fixtures/cache-wasmtime-48/event_counter.cwasm");
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::new(&wasmtime::Config::new()).unwrap();
        let cache = CompileCache::new(dir.path().to_owned(), &engine);
        let sha = "6501e1a289eb4aa53ddcc6b5932dfe6cf3ab1d61cfccd115eb2d1af2dd57e637";
        let path = cache.entry(sha).unwrap();
        for stale in [&old[..], &old[..old.len() / 2], b"\x7fELF not an artifact"] {
            cache.store(sha, stale).unwrap();
            assert!(path.is_file());
            assert!(cache.load(&engine, sha).is_none());
            assert!(!path.exists(), "the stale entry is removed");
        }
    }

    #[test]
    fn the_notice_names_the_plugin_and_its_size() {
        assert_eq!(
            notice_line("plugin guard", 18_300_000, true),
            "compiling plugin guard (18.3 MB), once; later starts use the cache"
        );
        assert_eq!(
            notice_line("check", 12_050_000, false),
            "compiling check (12.1 MB); this command does not cache compiled code"
        );
    }
}
