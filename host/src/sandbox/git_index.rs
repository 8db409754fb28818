//! The paths a git index (`.git/index`, versions 2 to 4) tracks, read by a small parser of its
//! own: warden never runs `git` on a repository it has not vetted (its configuration can run
//! code). Only the entries' paths are taken; extensions and the trailing checksum are left.
//!
//! Layout: `DIRC`, version, entry count (big-endian `u32`), then per entry 40 bytes of stat
//! data, the object id (20 bytes, 32 for SHA-256), 16 bits of flags (the low 12 the path's
//! length, `0xFFF` for longer), 16 more with the extended flag (version 3 and later), then
//! the path: in versions 2 and 3 NUL-terminated and padded with NULs to a multiple of 8
//! bytes from the entry's start; in version 4 prefix-compressed (a varint of the bytes to
//! drop from the previous path's end, then the NUL-terminated rest) and not padded.

/// Largest entry count taken (a larger claim is a damaged file).
const MAX_ENTRIES: u32 = 10_000_000;

/// Stat data before the object id.
const STAT_BYTES: usize = 40;

/// The paths of `index` (in index order, each once), the object ids `hash_len` bytes long
/// (20 for SHA-1, 32 for SHA-256); an error naming what is malformed and where.
pub fn tracked_paths(index: &[u8], hash_len: usize) -> Result<Vec<String>, String> {
    let mut at = Cursor {
        bytes: index,
        pos: 0,
    };
    if at.take(4)? != b"DIRC" {
        return Err("not a git index (no `DIRC` signature)".into());
    }
    let version = at.u32()?;
    if !(2..=4).contains(&version) {
        return Err(format!(
            "git index version {version} is not read (2 to 4 are)"
        ));
    }
    let count = at.u32()?;
    if count > MAX_ENTRIES {
        return Err(format!("git index claims {count} entries"));
    }
    let mut out: Vec<String> = Vec::new();
    let mut previous: Vec<u8> = Vec::new();
    for n in 0..count {
        let start = at.pos;
        let bad = |why: String| format!("git index entry {n} (byte {start}): {why}");
        at.take(STAT_BYTES + hash_len).map_err(bad)?;
        let flags = at.u16().map_err(bad)?;
        let extended = flags & 0x4000 != 0;
        if extended {
            if version < 3 {
                return Err(bad("an extended entry in a version 2 index".into()));
            }
            at.u16().map_err(bad)?;
        }
        let path = if version == 4 {
            let drop = at.varint().map_err(bad)?;
            let keep = previous
                .len()
                .checked_sub(drop)
                .ok_or_else(|| bad(format!("drops {drop} bytes of a shorter path")))?;
            let rest = at.until_nul().map_err(bad)?;
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(rest);
            path
        } else {
            let path = at.until_nul().map_err(bad)?.to_vec();
            // Padded with 1 to 8 NULs (the one read included) to a multiple of 8.
            let used = at.pos - start;
            let padded = used.div_ceil(8) * 8;
            at.take(padded - used).map_err(bad)?;
            path
        };
        if path.is_empty() {
            return Err(bad("an empty path".into()));
        }
        let text = String::from_utf8_lossy(&path).into_owned();
        if out.last() != Some(&text) {
            out.push(text);
        }
        previous = path;
    }
    Ok(out)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| "the file ends early".to_owned())?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// Git's offset varint: 7 bits a byte, high bit set on all but the last, each
    /// continuation adding one before the shift.
    fn varint(&mut self) -> Result<usize, String> {
        let mut byte = self.take(1)?[0];
        let mut value = usize::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            byte = self.take(1)?[0];
            value = value
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .map(|v| v | usize::from(byte & 0x7f))
                .ok_or_else(|| "a varint too large".to_owned())?;
        }
        Ok(value)
    }

    /// The bytes up to the next NUL, which is consumed.
    fn until_nul(&mut self) -> Result<&'a [u8], String> {
        let rest = &self.bytes[self.pos..];
        let len = rest
            .iter()
            .position(|b| *b == 0)
            .ok_or_else(|| "a path without its NUL".to_owned())?;
        self.pos += len + 1;
        Ok(&rest[..len])
    }
}

#[cfg(test)]
#[path = "git_index_tests.rs"]
mod tests;
