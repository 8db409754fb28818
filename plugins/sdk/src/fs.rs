//! Reading a whole file in as few host calls as the file needs.
//!
//! On `wasm32-wasip2`, `std::fs::read` reads through a WASI input stream and `poll`, which the
//! host answers on a thread of its own: a thread hand-off for every read. [`read`] and
//! [`read_to_string`] open the file, ask its size and read it with `wasi:filesystem`'s
//! `descriptor.read` on the calling thread: one read for a file up to 64 KiB (the host's largest
//! read), one more per further 64 KiB. They take the same paths as `std::fs` (the plugin's
//! preopened roots, at their absolute paths) and follow symbolic links as it does; the host
//! decides what may be opened, exactly as for `std::fs`. Natively (a plugin's own tests) they
//! are `std::fs::read` and `std::fs::read_to_string`.

use std::io;
use std::path::Path;

/// The whole content of the file at `path`.
///
/// Errors as `std::fs::read`: `NotFound`, `PermissionDenied` (outside every root, or refused by
/// the host), `IsADirectory`, …
pub fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    imp::read(path.as_ref())
}

/// The whole content of the file at `path`, which must be UTF-8 (`InvalidData` otherwise).
pub fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

#[cfg(not(target_os = "wasi"))]
mod imp {
    pub(super) fn read(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

#[cfg(target_os = "wasi")]
mod imp {
    use std::cell::OnceCell;
    use std::io::{self, ErrorKind};
    use std::path::{Component, Path};

    use wasi::filesystem::preopens::get_directories;
    use wasi::filesystem::types::{Descriptor, DescriptorFlags, ErrorCode, OpenFlags, PathFlags};

    /// The host's largest answer to one `descriptor.read`.
    const CHUNK: u64 = 64 << 10;

    thread_local! {
        /// Each preopened root: its descriptor and its path's normal components.
        static ROOTS: OnceCell<Vec<(Descriptor, Vec<String>)>> = const { OnceCell::new() };
    }

    /// `path`'s components as the host reads them (`..` kept for it to judge).
    fn parts(path: &Path) -> Vec<String> {
        path.components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                Component::ParentDir => Some("..".to_owned()),
                Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
            })
            .collect()
    }

    fn error(code: ErrorCode) -> io::Error {
        let kind = match code {
            ErrorCode::NoEntry => ErrorKind::NotFound,
            ErrorCode::NotDirectory => ErrorKind::NotADirectory,
            ErrorCode::IsDirectory => ErrorKind::IsADirectory,
            ErrorCode::Access | ErrorCode::NotPermitted | ErrorCode::ReadOnly => {
                ErrorKind::PermissionDenied
            }
            ErrorCode::NameTooLong => ErrorKind::InvalidFilename,
            ErrorCode::Invalid | ErrorCode::IllegalByteSequence => ErrorKind::InvalidInput,
            ErrorCode::Interrupted => ErrorKind::Interrupted,
            _ => return io::Error::other(code.name()),
        };
        // Said as `std::fs` says it ("permission denied"), not as WASI's code ("access").
        kind.into()
    }

    /// `path` opened for reading through the deepest root that holds it.
    fn open(path: &Path) -> io::Result<Descriptor> {
        ROOTS.with(|cell| {
            let roots = cell.get_or_init(|| {
                get_directories()
                    .into_iter()
                    .map(|(d, name)| (d, parts(Path::new(&name))))
                    .collect()
            });
            let wanted = parts(path);
            let (root, prefix) = roots
                .iter()
                .filter(|(_, prefix)| wanted.starts_with(prefix))
                .max_by_key(|(_, prefix)| prefix.len())
                .ok_or_else(|| {
                    io::Error::new(
                        ErrorKind::PermissionDenied,
                        format!("{}: outside every preopened directory", path.display()),
                    )
                })?;
            let rest = wanted[prefix.len()..].join("/");
            root.open_at(
                PathFlags::SYMLINK_FOLLOW,
                if rest.is_empty() { "." } else { &rest },
                OpenFlags::empty(),
                DescriptorFlags::READ,
            )
            .map_err(error)
        })
    }

    pub(super) fn read(path: &Path) -> io::Result<Vec<u8>> {
        let file = open(path)?;
        let size = file.stat().map_err(error)?.size;
        let mut bytes: Vec<u8> = Vec::new();
        loop {
            // One byte more than the size still expected: an answer shorter than asked once the
            // size is reached is the end of the file, heard without a further call. A short
            // answer before it (a host reading less at once) is read on from.
            let have = bytes.len() as u64;
            let want = (size.saturating_sub(have) + 1).min(CHUNK);
            let chunk = match file.read(want, have) {
                Ok((chunk, _)) => chunk,
                Err(ErrorCode::Interrupted) => continue,
                Err(code) => return Err(error(code)),
            };
            if chunk.is_empty() {
                return Ok(bytes);
            }
            let short = (chunk.len() as u64) < want;
            if bytes.is_empty() {
                bytes = chunk;
            } else {
                bytes.extend_from_slice(&chunk);
            }
            if short && bytes.len() as u64 >= size {
                return Ok(bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_whole_files_and_names_what_went_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("big.bin"), &big).unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        std::fs::write(dir.path().join("text.txt"), "héllo\n").unwrap();
        std::fs::write(dir.path().join("latin1"), b"caf\xe9").unwrap();

        assert_eq!(read(dir.path().join("big.bin")).unwrap(), big);
        assert_eq!(read(dir.path().join("empty")).unwrap(), b"");
        assert_eq!(
            read_to_string(dir.path().join("text.txt")).unwrap(),
            "héllo\n"
        );
        let err = read_to_string(dir.path().join("latin1")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        let err = read(dir.path().join("absent")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
