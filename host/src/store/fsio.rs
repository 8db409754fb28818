//! Small durable-filesystem helpers shared by the store: directory fsync, atomic file creation
//! (temp file, fsync, rename, directory fsync) and RFC 3339 timestamps.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::StoreError;

/// Makes a directory entry change (create, rename, unlink) in `dir` durable.
pub(crate) fn fsync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(StoreError::io("fsync directory", dir))
}

/// Writes `bytes` to `dir/name` atomically: a reader sees the whole file or none. The temp file
/// (`dir/.tmp-<unique>`) is fsynced before the rename and the directory after it.
///
/// The rename replaces an existing `dir/name`; callers choose unique names.
pub(crate) fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    write_renamed(dir, name, bytes, true)
}

/// Like [`write_atomic`], without the `fsync`s: the file appears whole or not at all, but may
/// be lost in a crash until [`sync_file`] and [`fsync_dir`] make it durable. For content kept
/// on the chance it is needed, made durable only once it is.
pub(crate) fn write_unsynced(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    write_renamed(dir, name, bytes, false)
}

/// `fsync` of the file at `path`.
pub(crate) fn sync_file(path: &Path) -> Result<(), StoreError> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(StoreError::io("fsync", path))
}

fn write_renamed(dir: &Path, name: &str, bytes: &[u8], sync: bool) -> Result<(), StoreError> {
    let tmp = dir.join(format!(".tmp-{}", uuid::Uuid::now_v7()));
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(StoreError::io("create", &tmp))?;
        f.write_all(bytes).map_err(StoreError::io("write", &tmp))?;
        if sync {
            f.sync_all().map_err(StoreError::io("fsync", &tmp))?;
        }
        let target = dir.join(name);
        fs::rename(&tmp, &target).map_err(StoreError::io("rename into place", &target))?;
        if sync { fsync_dir(dir) } else { Ok(()) }
    })();
    if result.is_err() {
        // Best effort: a leftover temp file is harmless (readers skip dot files).
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The current time at the precision it is stored with (milliseconds), so that what a writer
/// keeps in memory equals what a reader gets back.
pub(crate) fn now() -> SystemTime {
    let t = SystemTime::now();
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => SystemTime::UNIX_EPOCH + Duration::from_millis(d.as_millis() as u64),
        Err(_) => t,
    }
}

/// A timestamp as stored in every file: RFC 3339, UTC, milliseconds.
pub(crate) fn format_ts(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// Serde adapter for `SystemTime` fields stored as RFC 3339 strings.
pub(crate) mod rfc3339 {
    use std::time::SystemTime;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&humantime::format_rfc3339_millis(*t))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        humantime::parse_rfc3339(&s).map_err(serde::de::Error::custom)
    }
}

/// How old a leftover temp file must be before cleanup removes it (a younger one may belong to
/// a write in progress in another process).
pub(crate) const STALE_TMP_AGE: Duration = Duration::from_secs(3600);
