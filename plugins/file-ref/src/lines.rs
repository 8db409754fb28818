//! Line selection over a byte stream, in bounded memory: skip to a 1-based line, keep at most a
//! fixed number of bytes of the selected lines, and optionally count the lines that follow.
//! Lines end with `\n`; a last line without one still counts.

use std::io::{self, ErrorKind, Read};

const CHUNK: usize = 64 * 1024;

/// The selected part of a stream.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// The kept bytes of the selected lines (at most the `keep` asked for).
    pub bytes: Vec<u8>,
    /// Length of the prefix of `bytes` that holds complete lines.
    pub complete_len: usize,
    /// Complete lines in `bytes`.
    pub complete_lines: u64,
    /// The selected lines held more bytes than were kept.
    pub overflow: bool,
    /// Something follows what was kept (the rest of a line, or further lines).
    pub more: bool,
    /// Lines in the whole stream, when counted to its end.
    pub total_lines: Option<u64>,
    /// Offset of the first NUL byte among the bytes read, if any.
    pub nul_at: Option<u64>,
    /// Bytes read from the stream.
    pub scanned: u64,
}

impl Selection {
    /// Lines kept, the last one possibly partial.
    pub fn lines(&self) -> u64 {
        self.complete_lines + u64::from(self.bytes.len() > self.complete_len)
    }
}

/// Why lines could not be selected.
#[derive(Debug)]
pub enum SelectError {
    /// The first line asked for is past the end; the stream has this many lines.
    PastEnd(u64),
    /// Reaching the first line would need reading more than the scan limit.
    ScanLimit,
    /// Reading failed.
    Io(io::Error),
}

#[derive(PartialEq, Eq)]
enum Phase {
    Skip,
    Collect,
    Tail,
}

/// Select lines `start ..` (1-based; `count` lines, or all when `None`) from `reader`, keeping at
/// most `keep` bytes. Reads at most `scan_cap` bytes to reach `start`; with `count_total`, keeps
/// counting lines to the end of the stream while the total read stays under `scan_cap`.
pub fn select_lines<R: Read>(
    mut reader: R,
    start: u64,
    count: Option<u64>,
    keep: usize,
    scan_cap: u64,
    count_total: bool,
) -> Result<Selection, SelectError> {
    let start = start.max(1);
    let stop_line = count.map(|c| start.saturating_add(c));
    let mut buf = vec![0u8; CHUNK];
    let mut sel = Selection::default();
    let mut line: u64 = 1;
    let mut last_byte: Option<u8> = None;
    let mut phase = if start == 1 {
        Phase::Collect
    } else {
        Phase::Skip
    };
    let mut counted_to_end = true;

    'read: loop {
        if phase == Phase::Tail && sel.more && !count_total {
            counted_to_end = false;
            break;
        }
        if sel.scanned >= scan_cap && phase != Phase::Collect {
            if phase == Phase::Skip {
                return Err(SelectError::ScanLimit);
            }
            counted_to_end = false;
            break;
        }
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(SelectError::Io(e)),
        };
        let chunk = &buf[..n];
        if sel.nul_at.is_none()
            && chunk.contains(&0)
            && let Some(at) = chunk.iter().position(|&b| b == 0)
        {
            sel.nul_at = Some(sel.scanned + at as u64);
        }
        sel.scanned += n as u64;
        last_byte = chunk.last().copied();

        let mut i = 0;
        while i < n {
            match phase {
                Phase::Skip => match find_newline(&chunk[i..]) {
                    Some(j) => {
                        line += 1;
                        i += j + 1;
                        if line == start {
                            phase = Phase::Collect;
                        }
                    }
                    None => i = n,
                },
                Phase::Collect => {
                    if stop_line == Some(line) {
                        sel.more = true;
                        phase = Phase::Tail;
                        continue;
                    }
                    let newline = find_newline(&chunk[i..]);
                    let seg_len = newline.map_or(n - i, |j| j + 1);
                    let room = keep - sel.bytes.len();
                    if seg_len > room {
                        sel.bytes.extend_from_slice(&chunk[i..i + room]);
                        sel.overflow = true;
                        sel.more = true;
                        phase = Phase::Tail;
                        if !count_total {
                            counted_to_end = false;
                            break 'read;
                        }
                        continue;
                    }
                    sel.bytes.extend_from_slice(&chunk[i..i + seg_len]);
                    i += seg_len;
                    if newline.is_some() {
                        line += 1;
                        sel.complete_lines += 1;
                        sel.complete_len = sel.bytes.len();
                    }
                }
                Phase::Tail => {
                    sel.more = true;
                    if !count_total {
                        counted_to_end = false;
                        break 'read;
                    }
                    line += chunk[i..].iter().filter(|&&b| b == b'\n').count() as u64;
                    i = n;
                }
            }
        }
    }

    let total = line - 1 + u64::from(last_byte.is_some_and(|b| b != b'\n'));
    // Every existing line holds at least one byte (its text or its `\n`), so an empty
    // collection that started past line 1 means the line does not exist.
    if phase == Phase::Skip || (phase == Phase::Collect && sel.bytes.is_empty() && start > 1) {
        return Err(SelectError::PastEnd(total));
    }
    if counted_to_end {
        sel.total_lines = Some(total);
    }
    Ok(sel)
}

fn find_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(
        text: &str,
        start: u64,
        count: Option<u64>,
        keep: usize,
    ) -> Result<Selection, SelectError> {
        select_lines(text.as_bytes(), start, count, keep, u64::MAX, true)
    }

    fn text(sel: &Selection) -> &str {
        std::str::from_utf8(&sel.bytes).unwrap_or("<invalid>")
    }

    #[test]
    fn selects_a_range_and_counts() {
        let Ok(s) = select("a\nb\nc\nd\n", 2, Some(2), 100) else {
            panic!()
        };
        assert_eq!(text(&s), "b\nc\n");
        assert_eq!((s.lines(), s.more, s.total_lines), (2, true, Some(4)));
    }

    #[test]
    fn last_line_without_newline() {
        let Ok(s) = select("a\nb", 2, None, 100) else {
            panic!()
        };
        assert_eq!(text(&s), "b");
        assert_eq!((s.lines(), s.more, s.total_lines), (1, false, Some(2)));
    }

    #[test]
    fn past_end() {
        assert!(matches!(
            select("a\nb\n", 3, None, 100),
            Err(SelectError::PastEnd(2))
        ));
        assert!(matches!(
            select("a\nb", 3, Some(1), 100),
            Err(SelectError::PastEnd(2))
        ));
        assert!(matches!(
            select("", 2, None, 100),
            Err(SelectError::PastEnd(0))
        ));
        let Ok(s) = select("", 1, None, 100) else {
            panic!()
        };
        assert_eq!((s.lines(), s.total_lines), (0, Some(0)));
    }

    #[test]
    fn range_end_past_eof_is_clamped() {
        let Ok(s) = select("a\nb\n", 2, Some(10), 100) else {
            panic!()
        };
        assert_eq!(text(&s), "b\n");
        assert!(!s.more);
    }

    #[test]
    fn keep_cuts_long_lines() {
        let Ok(s) = select("abcdef\ngh\n", 1, None, 3) else {
            panic!()
        };
        assert_eq!(text(&s), "abc");
        assert_eq!(
            (s.complete_len, s.overflow, s.more, s.total_lines),
            (0, true, true, Some(2))
        );
        let Ok(s) = select("ab\ncdef\n", 1, None, 5) else {
            panic!()
        };
        assert_eq!((text(&s), s.complete_len, s.lines()), ("ab\ncd", 3, 2));
    }

    #[test]
    fn scan_limit_stops_skipping() {
        // The limit is checked between reads of 64 KiB.
        let long = "x\n".repeat(100_000);
        let r = select_lines(long.as_bytes(), 90_000, Some(1), 10, 100, false);
        assert!(matches!(r, Err(SelectError::ScanLimit)));
    }

    #[test]
    fn chunk_boundaries() {
        let body: String = (0..100_000).map(|i| format!("{i}\n")).collect();
        let Ok(s) = select(&body, 70_000, Some(3), 100) else {
            panic!()
        };
        assert_eq!(text(&s), "69999\n70000\n70001\n");
        assert_eq!(s.total_lines, Some(100_000));
    }
}
