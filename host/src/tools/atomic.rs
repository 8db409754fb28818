//! A file replaced atomically in an opened directory: the bytes go to a new temporary file
//! beside it (created exclusively, so never through a symlink), which is synced and renamed
//! over the final name. A reader sees the old content or the new, never a part; an existing
//! file's permission bits are kept.

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt, Permissions, PermissionsExt};

/// Write `bytes` to `name` in `dir` through a temporary file and a rename; `mode` is the
/// existing file's permission bits (`None`: a new file, the usual `0o666` less the umask).
pub(crate) fn replace_file(
    dir: &Dir,
    name: &OsStr,
    bytes: &[u8],
    mode: Option<u32>,
) -> std::io::Result<()> {
    // The stem is text: bytes that are not UTF-8 and control characters become `_`.
    let stem: String = String::from_utf8_lossy(name.as_bytes())
        .chars()
        .map(|c| {
            if c.is_control() || c == '\u{fffd}' {
                '_'
            } else {
                c
            }
        })
        .take(32)
        .collect();
    let mut attempts = 0;
    let (temp, mut file) = loop {
        let temp = format!(".{stem}.{:08x}.warden-tmp", fastrand::u32(..));
        let mut options = OpenOptions::new();
        // A new file gets `0o666` less the umask, as any editor's would.
        options.write(true).create_new(true).mode(0o666);
        match dir.open_with(&temp, &options) {
            Ok(file) => break (temp, file),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 8 => {
                attempts += 1;
            }
            Err(e) => return Err(e),
        }
    };
    let written = (|| {
        file.write_all(bytes)?;
        if let Some(mode) = mode {
            file.set_permissions(Permissions::from_mode(mode & 0o7777))?;
        }
        file.sync_all()?;
        drop(file);
        dir.rename(&temp, dir, name)
    })();
    if written.is_err() {
        // Best effort: the temporary file must not be left behind.
        let _ = dir.remove_file(&temp);
    }
    written
}
