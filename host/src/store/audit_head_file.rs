//! `sessions/<id>/audit.head`: the audit chain head at the end of the session's last turn,
//! outside the log. The history records the head at each commit group; the records a turn
//! writes after its last commit (the outcome of its last model request, the `on-turn-end`
//! call point) would otherwise be covered only by the next commit. The file is created with
//! the session (`{}`: no head yet) and replaced atomically (a new file renamed over it) at
//! every turn's end, so a log cut back or rewritten after the turn disagrees with it, and a
//! session of history minor version 3 without it was tampered with.

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::audit::read_audit_head;
use super::audit_chain::ChainHead;
use super::{Home, StoreError};

/// The file's name in a session directory.
pub(crate) const AUDIT_HEAD_FILE: &str = "audit.head";

/// The history minor version from which a session keeps [`AUDIT_HEAD_FILE`].
pub(crate) const HEAD_FILE_MINOR: u64 = 3;

/// The largest head file read.
const MAX_BYTES: u64 = 4096;

/// The file's content: the head (`seq` and `hash`), or neither before the log has a chained
/// record.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeadFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hash: Option<String>,
}

/// What `audit.head` holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RecordedHead {
    /// No file.
    Missing,
    /// The file, before any chained record.
    Empty,
    /// The head at the end of the last turn.
    Head(ChainHead),
}

/// The content of a new session's head file.
pub(crate) fn empty() -> Vec<u8> {
    b"{}\n".to_vec()
}

/// Records session `id`'s audit chain head now in its `audit.head` (a new file renamed over the
/// old one, so a crash leaves one or the other). Returns the head recorded.
pub fn record_audit_head(home: &Home, id: &str) -> Result<Option<ChainHead>, StoreError> {
    let head = read_audit_head(home, id)?;
    let path = home.session_dir(id)?.join(AUDIT_HEAD_FILE);
    let tmp = path.with_extension("head.new");
    let content = HeadFile {
        seq: head.as_ref().map(|h| h.seq),
        hash: head.as_ref().map(|h| h.hash.clone()),
    };
    let mut text = serde_json::to_vec(&content).map_err(|source| StoreError::Encode {
        path: path.clone(),
        source,
    })?;
    text.push(b'\n');
    // A leftover from a crash (or a planted link) is replaced, never followed.
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(StoreError::io("remove", &tmp)(e)),
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)
        .map_err(StoreError::io("create", &tmp))?;
    file.write_all(&text)
        .map_err(StoreError::io("write", &tmp))?;
    fs::rename(&tmp, &path).map_err(StoreError::io("rename", &path))?;
    Ok(head)
}

/// Reads session `id`'s `audit.head`: a regular file, not followed through a symbolic link,
/// opened without blocking, at most 4 KiB. Anything else in its place is an error naming it.
pub(crate) fn read_recorded_head(home: &Home, id: &str) -> Result<RecordedHead, StoreError> {
    let path = home.session_dir(id)?.join(AUDIT_HEAD_FILE);
    read_at(&path)
}

fn read_at(path: &Path) -> Result<RecordedHead, StoreError> {
    let Some(file) = super::audit_file::open_log(path, super::audit_file::Mode::Read)? else {
        return Ok(RecordedHead::Missing);
    };
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(StoreError::io("read", path))?;
    let parsed = (bytes.len() as u64 <= MAX_BYTES)
        .then(|| serde_json::from_slice::<HeadFile>(&bytes).ok())
        .flatten();
    match parsed {
        Some(HeadFile {
            seq: Some(seq),
            hash: Some(hash),
        }) => Ok(RecordedHead::Head(ChainHead { seq, hash })),
        Some(HeadFile {
            seq: None,
            hash: None,
        }) => Ok(RecordedHead::Empty),
        _ => Err(StoreError::corrupt(
            path,
            1,
            "not an audit head ({} or {\"seq\":N,\"hash\":\"…\"})",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes_and_refuses_anything_else() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join(AUDIT_HEAD_FILE);
        assert_eq!(read_at(&path)?, RecordedHead::Missing);
        fs::write(&path, empty())?;
        assert_eq!(read_at(&path)?, RecordedHead::Empty);
        fs::write(&path, b"{\"seq\":4,\"hash\":\"ab\"}\n")?;
        assert_eq!(
            read_at(&path)?,
            RecordedHead::Head(ChainHead {
                seq: 4,
                hash: "ab".into()
            })
        );
        for bad in [
            &b"{\"seq\":\"x\"}"[..],
            b"garbage",
            b"{\"seq\":1,\"hash\":\"a\",\"more\":1}",
            b"{\"seq\":1}",
        ] {
            fs::write(&path, bad)?;
            assert!(read_at(&path).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        fs::remove_file(&path)?;
        std::os::unix::fs::symlink("/dev/zero", &path)?;
        assert!(read_at(&path).is_err());
        Ok(())
    }
}
