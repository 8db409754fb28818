//! Opening and reading an audit log file safely: [`open_log`] opens it without following a
//! symbolic link and without blocking (`O_NOFOLLOW | O_NONBLOCK`), and refuses anything but a
//! regular file (a FIFO, a device such as `/dev/zero`, a directory); [`LineReader`] hands out
//! its lines one at a time, each at most [`MAX_LINE`] bytes, so reading any file takes bounded
//! memory.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use super::StoreError;

/// The longest line an audit log may hold (16 MiB): a longer one is not a record.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// How an audit log is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Read only; a missing file is `Ok(None)`.
    Read,
    /// Read and append, created when missing.
    Append,
}

/// Opens the audit log at `path`, refusing a symbolic link or anything but a regular file with
/// an error naming the path and what it is. Never blocks on a FIFO.
pub(crate) fn open_log(path: &Path, mode: Mode) -> Result<Option<File>, StoreError> {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
    if mode == Mode::Append {
        options.append(true).create(true);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if mode == Mode::Read && e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(StoreError::NotRegular {
                path: path.to_owned(),
                what: "a symbolic link",
            });
        }
        Err(e) => return Err(StoreError::io("open", path)(e)),
    };
    let kind = file
        .metadata()
        .map_err(StoreError::io("stat", path))?
        .file_type();
    if kind.is_file() {
        return Ok(Some(file));
    }
    let what = if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    Err(StoreError::NotRegular {
        path: path.to_owned(),
        what,
    })
}

/// One piece of an audit log.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// A line ended by a newline (without it).
    Line(&'a [u8]),
    /// The bytes after the last newline: a line cut short by a crash.
    Torn(&'a [u8]),
    /// A line longer than [`MAX_LINE`] (its bytes were not kept).
    TooLong,
}

/// The lines of a file, one at a time, in bounded memory.
pub(crate) struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    number: u64,
    max: usize,
}

impl<R: Read> LineReader<R> {
    /// Reads `inner` from its current position.
    pub(crate) fn new(inner: R) -> Self {
        Self::with_max(inner, MAX_LINE)
    }

    /// [`LineReader::new`] with lines of at most `max` bytes.
    pub(crate) fn with_max(inner: R, max: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(64 * 1024, inner),
            buf: Vec::new(),
            number: 0,
            max,
        }
    }

    /// The next non-empty piece and its line number (from 1), or `None` at the end.
    pub(crate) fn next_piece(&mut self) -> io::Result<Option<(u64, Piece<'_>)>> {
        loop {
            self.buf.clear();
            self.number += 1;
            let mut too_long = false;
            let ended = loop {
                let available = match self.inner.fill_buf() {
                    Ok(b) => b,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                if available.is_empty() {
                    break false;
                }
                let (take, found) = match available.iter().position(|&b| b == b'\n') {
                    Some(i) => (i, true),
                    None => (available.len(), false),
                };
                if !too_long {
                    if self.buf.len() + take > self.max {
                        too_long = true;
                        self.buf = Vec::new();
                    } else {
                        self.buf.extend_from_slice(&available[..take]);
                    }
                }
                self.inner.consume(take + usize::from(found));
                if found {
                    break true;
                }
            };
            if too_long {
                return Ok(Some((self.number, Piece::TooLong)));
            }
            if !ended {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                return Ok(Some((self.number, Piece::Torn(&self.buf))));
            }
            if !self.buf.is_empty() {
                return Ok(Some((self.number, Piece::Line(&self.buf))));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(bytes: &[u8], max: usize) -> Vec<(u64, String)> {
        let mut reader = LineReader::with_max(bytes, max);
        let mut out = Vec::new();
        while let Some((n, piece)) = reader.next_piece().unwrap() {
            out.push((
                n,
                match piece {
                    Piece::Line(l) => format!("line {}", String::from_utf8_lossy(l)),
                    Piece::Torn(l) => format!("torn {}", String::from_utf8_lossy(l)),
                    Piece::TooLong => "too long".to_owned(),
                },
            ));
        }
        out
    }

    #[test]
    fn lines_are_numbered_empty_ones_skipped_and_the_tail_is_torn() {
        assert_eq!(
            pieces(b"a\n\nbb\nc", 10),
            vec![
                (1, "line a".to_owned()),
                (3, "line bb".to_owned()),
                (4, "torn c".to_owned())
            ]
        );
        assert_eq!(pieces(b"", 10), vec![]);
        assert_eq!(pieces(b"a\n", 10), vec![(1, "line a".to_owned())]);
    }

    #[test]
    fn a_line_over_the_cap_is_too_long_and_reading_goes_on() {
        let mut bytes = vec![b'x'; 100];
        bytes.extend_from_slice(b"\nok\n");
        assert_eq!(
            pieces(&bytes, 10),
            vec![(1, "too long".to_owned()), (2, "line ok".to_owned())]
        );
    }

    #[test]
    fn a_fifo_a_device_and_a_symlink_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        for mode in [Mode::Read, Mode::Append] {
            let err = open_log(&fifo, mode).unwrap_err().to_string();
            assert!(err.contains("a FIFO"), "{err}");
            let err = open_log(Path::new("/dev/zero"), mode)
                .unwrap_err()
                .to_string();
            assert!(err.contains("a character device"), "{err}");
        }
        let real = dir.path().join("real");
        std::fs::write(&real, b"").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let err = open_log(&link, Mode::Append).unwrap_err().to_string();
        assert!(err.contains("a symbolic link"), "{err}");
        assert!(open_log(&real, Mode::Read).unwrap().is_some());
        assert!(
            open_log(&dir.path().join("none"), Mode::Read)
                .unwrap()
                .is_none()
        );
    }
}
