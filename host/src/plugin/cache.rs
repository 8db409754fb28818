//! The on-disk cache of compiled plugin code.
//!
//! An entry is keyed by the engine's `precompile_compatibility_hash()` (the directory) and the
//! sha256 of the component bytes (the file name), and written atomically (temporary file,
//! fsync, rename), so a reader sees a whole entry or none. Only files this cache wrote are ever
//! deserialized: the path is derived from the two keys, never taken from outside. wasmtime
//! checks each artifact's header (engine version and configuration) and refuses a foreign or
//! damaged one, which is then deleted and recompiled. The cache is trusted exactly as much as
//! the state directory that holds it (see docs/security.md).

#![allow(unsafe_code)]

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

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
