//! The few file-system calls the resolver makes: `lstat`, open for reading, and reading a
//! directory. Natively they are `std::fs`; in the component they go straight to WASI p2
//! (`wasi:filesystem`) through the preopened roots, because wasi-libc adds a second host `stat`
//! to every `stat` and every directory entry (to fill in inode numbers nobody here uses).
//!
//! [`Dir`] walks a path one component at a time: each directory is opened relative to the one
//! before it without following a symbolic link, and a file is opened and read through the
//! descriptor of the directory that was checked. In the component, nothing can be swapped
//! between the check and the use (a directory replaced by a link to `.git` fails to open rather
//! than being followed). Natively (tests and library use) a [`Dir`] is a path and the same
//! calls are made by path.

use std::io;
use std::path::Path;

/// What a path is, without following a final symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A FIFO, socket, device or anything else.
    Other,
}

/// Type and size of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// What it is.
    pub kind: Kind,
    /// Size in bytes.
    pub len: u64,
}

impl Meta {
    /// A directory.
    pub fn is_dir(&self) -> bool {
        self.kind == Kind::Dir
    }

    /// A regular file.
    pub fn is_file(&self) -> bool {
        self.kind == Kind::File
    }
}

pub use imp::{Dir, OpenFile, lstat, open, read_dir};

#[cfg(not(target_os = "wasi"))]
mod imp {
    use std::fs::{self, File};
    use std::io::{self, Read};
    use std::path::Path;

    use super::{Kind, Meta};

    fn meta(m: &fs::Metadata) -> Meta {
        let t = m.file_type();
        let kind = if t.is_symlink() {
            Kind::Symlink
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        };
        Meta { kind, len: m.len() }
    }

    /// Type and size of `path`, not following a final symlink.
    pub fn lstat(path: &Path) -> io::Result<Meta> {
        fs::symlink_metadata(path).map(|m| meta(&m))
    }

    /// A file open for reading.
    pub struct OpenFile(File);

    impl Read for OpenFile {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.0.read(buf)
        }
    }

    impl OpenFile {
        /// At most `len` bytes from the current position (empty at the end).
        pub fn read_chunk(&mut self, len: usize) -> io::Result<Vec<u8>> {
            let mut chunk = vec![0; len];
            let n = self.0.read(&mut chunk)?;
            chunk.truncate(n);
            Ok(chunk)
        }
    }

    /// Open `path` for reading; returns the handle and its metadata, checked again on the
    /// handle (`known` is what an earlier `lstat` said).
    pub fn open(path: &Path, _known: Meta) -> io::Result<(OpenFile, Meta)> {
        let file = File::open(path)?;
        let m = meta(&file.metadata()?);
        Ok((OpenFile(file), m))
    }

    /// A directory on the way of a walk (natively: its path).
    #[derive(Debug)]
    pub struct Dir(std::path::PathBuf);

    impl Dir {
        /// The root directory at `path`.
        pub fn root(path: &Path) -> io::Result<Self> {
            Ok(Self(path.to_owned()))
        }

        /// Type and size of `name` in this directory, not following a symlink.
        pub fn stat_at(&self, name: &str) -> io::Result<Meta> {
            lstat(&self.0.join(name))
        }

        /// Type and size of this directory.
        pub fn stat(&self) -> io::Result<Meta> {
            fs::metadata(&self.0).map(|m| meta(&m))
        }

        /// The directory `name` in this one; a symlink is not followed (an error).
        pub fn open_dir(&self, name: &str) -> io::Result<Self> {
            let path = self.0.join(name);
            if lstat(&path)?.kind != Kind::Dir {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "not a directory",
                ));
            }
            Ok(Self(path))
        }

        /// The target of the symlink `name` in this directory.
        pub fn read_link(&self, name: &str) -> io::Result<String> {
            fs::read_link(self.0.join(name)).map(|t| t.to_string_lossy().into_owned())
        }

        /// Open the file `name` in this directory for reading; metadata from the handle
        /// (`known` is what an earlier `stat_at` said).
        pub fn open_file(&self, name: &str, _known: Meta) -> io::Result<(OpenFile, Meta)> {
            let path = self.0.join(name);
            if lstat(&path)?.kind == Kind::Symlink {
                return Err(io::Error::other("a symbolic link"));
            }
            let file = File::open(path)?;
            let m = meta(&file.metadata()?);
            Ok((OpenFile(file), m))
        }
    }

    /// Names in `dir` with their kinds (symlinks not followed).
    pub fn read_dir(dir: &Path) -> io::Result<Vec<(String, Kind)>> {
        let mut out = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let t = entry.file_type()?;
            let kind = if t.is_symlink() {
                Kind::Symlink
            } else if t.is_dir() {
                Kind::Dir
            } else if t.is_file() {
                Kind::File
            } else {
                Kind::Other
            };
            out.push((entry.file_name().to_string_lossy().into_owned(), kind));
        }
        Ok(out)
    }
}

#[cfg(target_os = "wasi")]
mod imp {
    use std::cell::OnceCell;
    use std::io::{self, ErrorKind, Read};
    use std::path::{Component, Path};

    use wasi::filesystem::preopens::get_directories;
    use wasi::filesystem::types::{
        Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags,
    };

    use super::{Kind, Meta};

    thread_local! {
        static PREOPENS: OnceCell<Preopens> = const { OnceCell::new() };
    }

    fn parts(path: &Path) -> Vec<String> {
        path.components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    }

    /// Each preopen: its descriptor, its guest path's components, and that path.
    type Preopens = Vec<(Descriptor, Vec<String>, std::path::PathBuf)>;

    fn init(cell: &OnceCell<Preopens>) -> &Preopens {
        cell.get_or_init(|| {
            get_directories()
                .into_iter()
                .map(|(d, name)| (d, parts(Path::new(&name)), name.into()))
                .collect()
        })
    }

    /// Run `f` with the preopen holding `path` and the path relative to it (`.` for the
    /// preopen itself).
    fn with_preopen<R>(
        path: &Path,
        f: impl FnOnce(&Descriptor, &str) -> io::Result<R>,
    ) -> io::Result<R> {
        PREOPENS.with(|cell| {
            let preopens = init(cell);
            let wanted = parts(path);
            let best = preopens
                .iter()
                .filter(|(_, root, _)| {
                    wanted.len() >= root.len() && wanted[..root.len()] == root[..]
                })
                .max_by_key(|(_, root, _)| root.len());
            let Some((dir, root, _)) = best else {
                return Err(io::Error::new(
                    ErrorKind::PermissionDenied,
                    "outside every preopened directory",
                ));
            };
            let rel = wanted[root.len()..].join("/");
            f(dir, if rel.is_empty() { "." } else { &rel })
        })
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
            ErrorCode::WouldBlock => ErrorKind::WouldBlock,
            ErrorCode::Interrupted => ErrorKind::Interrupted,
            _ => ErrorKind::Other,
        };
        io::Error::new(kind, code.to_string())
    }

    fn kind(t: DescriptorType) -> Kind {
        match t {
            DescriptorType::RegularFile => Kind::File,
            DescriptorType::Directory => Kind::Dir,
            DescriptorType::SymbolicLink => Kind::Symlink,
            _ => Kind::Other,
        }
    }

    fn meta(stat: wasi::filesystem::types::DescriptorStat) -> Meta {
        Meta {
            kind: kind(stat.type_),
            len: stat.size,
        }
    }

    /// A directory on the way of a walk: a preopened root or a descriptor opened from one,
    /// component by component, never through a symlink.
    pub enum Dir {
        /// The preopen with this index.
        Preopen(usize),
        /// A directory opened during the walk.
        Opened(Descriptor),
    }

    impl std::fmt::Debug for Dir {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                Self::Preopen(i) => write!(f, "Dir::Preopen({i})"),
                Self::Opened(_) => f.write_str("Dir::Opened"),
            }
        }
    }

    impl Dir {
        /// The root directory at `path` (a preopen, or a directory below one).
        pub fn root(path: &Path) -> io::Result<Self> {
            PREOPENS.with(|cell| {
                let preopens = init(cell);
                // A root is usually a preopen itself: found without splitting its path.
                if let Some(index) = preopens.iter().position(|(_, _, name)| name == path) {
                    return Ok(Self::Preopen(index));
                }
                let wanted = parts(path);
                let best = preopens
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, root, _))| {
                        wanted.len() >= root.len() && wanted[..root.len()] == root[..]
                    })
                    .max_by_key(|(_, (_, root, _))| root.len());
                let Some((index, (dir, root, _))) = best else {
                    return Err(io::Error::new(
                        ErrorKind::PermissionDenied,
                        "outside every preopened directory",
                    ));
                };
                let rel = wanted[root.len()..].join("/");
                if rel.is_empty() {
                    return Ok(Self::Preopen(index));
                }
                dir.open_at(
                    PathFlags::empty(),
                    &rel,
                    OpenFlags::DIRECTORY,
                    DescriptorFlags::READ,
                )
                .map(Self::Opened)
                .map_err(error)
            })
        }

        fn with<R>(&self, f: impl FnOnce(&Descriptor) -> io::Result<R>) -> io::Result<R> {
            match self {
                Self::Opened(d) => f(d),
                Self::Preopen(index) => PREOPENS.with(|cell| match init(cell).get(*index) {
                    Some((d, _, _)) => f(d),
                    None => Err(io::Error::other("preopen missing")),
                }),
            }
        }

        /// Type and size of `name` in this directory, not following a symlink.
        pub fn stat_at(&self, name: &str) -> io::Result<Meta> {
            self.with(|d| d.stat_at(PathFlags::empty(), name).map(meta).map_err(error))
        }

        /// Type and size of this directory.
        pub fn stat(&self) -> io::Result<Meta> {
            self.with(|d| d.stat().map(meta).map_err(error))
        }

        /// The directory `name` in this one; a symlink is not followed (an error).
        pub fn open_dir(&self, name: &str) -> io::Result<Self> {
            self.with(|d| {
                d.open_at(
                    PathFlags::empty(),
                    name,
                    OpenFlags::DIRECTORY,
                    DescriptorFlags::READ,
                )
                .map(Self::Opened)
                .map_err(error)
            })
        }

        /// The target of the symlink `name` in this directory.
        pub fn read_link(&self, name: &str) -> io::Result<String> {
            self.with(|d| d.readlink_at(name).map_err(error))
        }

        /// Open the file `name` in this directory for reading, which `known` (an earlier
        /// `stat_at`) describes. The open does not follow a symlink, so a link swapped in since
        /// fails to open; `known` is trusted for type and size rather than asked again (each host
        /// call costs microseconds), as in [`open`].
        pub fn open_file(&self, name: &str, known: Meta) -> io::Result<(OpenFile, Meta)> {
            self.with(|d| {
                let descriptor = d
                    .open_at(
                        PathFlags::empty(),
                        name,
                        OpenFlags::empty(),
                        DescriptorFlags::READ,
                    )
                    .map_err(error)?;
                Ok((
                    OpenFile {
                        descriptor,
                        offset: 0,
                    },
                    known,
                ))
            })
        }
    }

    /// Type and size of `path`, not following a final symlink.
    pub fn lstat(path: &Path) -> io::Result<Meta> {
        with_preopen(path, |dir, rel| {
            let stat = if rel == "." {
                dir.stat()
            } else {
                dir.stat_at(PathFlags::empty(), rel)
            };
            let stat = stat.map_err(error)?;
            Ok(Meta {
                kind: kind(stat.type_),
                len: stat.size,
            })
        })
    }

    /// A file open for reading.
    pub struct OpenFile {
        descriptor: Descriptor,
        offset: u64,
    }

    impl Read for OpenFile {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let bytes = self.read_chunk(buf.len())?;
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            Ok(n)
        }
    }

    impl OpenFile {
        /// At most `len` bytes from the current position (empty at the end): the buffer the
        /// host wrote them into, not a copy.
        pub fn read_chunk(&mut self, len: usize) -> io::Result<Vec<u8>> {
            let (mut bytes, _eof) = self
                .descriptor
                .read(len as u64, self.offset)
                .map_err(error)?;
            bytes.truncate(len);
            self.offset += bytes.len() as u64;
            Ok(bytes)
        }
    }

    /// Open `path`, which `known` describes, for reading (a final symlink is not followed).
    ///
    /// Each host call costs several microseconds, so `known` is trusted rather than checked
    /// again on the handle: a file swapped for a symlink in between fails to open (links are
    /// not followed), a FIFO swapped in blocks only until the call's deadline, and devices
    /// cannot be created in a workspace without privileges.
    pub fn open(path: &Path, known: Meta) -> io::Result<(OpenFile, Meta)> {
        with_preopen(path, |dir, rel| {
            let descriptor = dir
                .open_at(
                    PathFlags::empty(),
                    rel,
                    OpenFlags::empty(),
                    DescriptorFlags::READ,
                )
                .map_err(error)?;
            Ok((
                OpenFile {
                    descriptor,
                    offset: 0,
                },
                known,
            ))
        })
    }

    /// Names in `dir` with their kinds (symlinks not followed).
    pub fn read_dir(path: &Path) -> io::Result<Vec<(String, Kind)>> {
        with_preopen(path, |dir, rel| {
            let opened;
            let target = if rel == "." {
                dir
            } else {
                opened = dir
                    .open_at(
                        PathFlags::empty(),
                        rel,
                        OpenFlags::DIRECTORY,
                        DescriptorFlags::READ,
                    )
                    .map_err(error)?;
                &opened
            };
            let stream = target.read_directory().map_err(error)?;
            let mut out = Vec::new();
            while let Some(entry) = stream.read_directory_entry().map_err(error)? {
                out.push((entry.name, kind(entry.type_)));
            }
            Ok(out)
        })
    }
}

/// Read at most `limit` bytes from the start of `file`, in as few calls as possible; `size` is
/// the file's size as last seen (the buffer never exceeds it by more than a little). When one
/// call reads it all, the buffer is the one the read filled, with no copy.
pub fn read_prefix(file: &mut OpenFile, limit: usize, size: u64) -> io::Result<Vec<u8>> {
    let limit = limit.min(
        usize::try_from(size)
            .unwrap_or(usize::MAX)
            .saturating_add(1),
    );
    let mut buf: Vec<u8> = Vec::new();
    // Stop at the known size too: one read call for a whole small file.
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    while buf.len() < limit && (buf.len() < size || buf.is_empty()) {
        let chunk = match file.read_chunk(limit - buf.len()) {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        if buf.is_empty() {
            buf = chunk;
        } else {
            buf.extend_from_slice(&chunk);
        }
    }
    Ok(buf)
}

/// Whether `path` exists as a regular file (no symlink followed).
pub fn is_file(path: &Path) -> bool {
    lstat(path).is_ok_and(|m| m.is_file())
}
