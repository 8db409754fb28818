//! File names as the kernel has them: bytes, not text. A name a command creates may be
//! invalid UTF-8 or hold newlines and control characters; every record and event keeps it
//! exactly, and every display shows it escaped.
//!
//! In JSON a name is two fields: `path`, the name as a string (its text when it is UTF-8,
//! else with each invalid byte replaced by U+FFFD), and, only when it is not UTF-8,
//! `path_hex`, its exact bytes as lowercase hex. A record written before `path_hex` existed
//! has a UTF-8 `path` only, and reads back the same.
//!
//! [`shown`] is the name for a person or the model: [`super::escape::escape`] of each valid
//! piece, and each invalid byte as `\xNN`.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use super::escape::escape;

/// The two JSON fields of `name`: its string form and, when it is not UTF-8, its bytes in hex.
pub fn encode(name: &OsStr) -> (String, Option<String>) {
    match name.to_str() {
        Some(text) => (text.to_owned(), None),
        None => {
            let bytes = name.as_bytes();
            let mut hex = String::with_capacity(bytes.len() * 2);
            for b in bytes {
                let _ = write!(hex, "{b:02x}");
            }
            (String::from_utf8_lossy(bytes).into_owned(), Some(hex))
        }
    }
}

/// The name the fields `path` and `path_hex` stand for: the bytes of `path_hex` when present,
/// else `path`. An error says what is wrong with `path_hex`.
pub fn decode(path: &str, path_hex: Option<&str>) -> Result<OsString, String> {
    let Some(hex) = path_hex else {
        return Ok(OsString::from(path));
    };
    if hex.len() % 2 != 0 {
        return Err(format!(
            "`path_hex` of `{}` has an odd number of digits",
            escape(path)
        ));
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    let mut bytes = Vec::with_capacity(hex.len() / 2);
    for pair in hex.as_bytes().chunks(2) {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(hi), Some(lo)) => bytes.push(hi << 4 | lo),
            _ => {
                return Err(format!(
                    "`path_hex` of `{}` is not hexadecimal",
                    escape(path)
                ));
            }
        }
    }
    Ok(OsString::from_vec(bytes))
}

/// `name` as one inert line for a person or the model: valid text through
/// [`escape`], each byte that is not UTF-8 as `\xNN`.
pub fn shown(name: &OsStr) -> String {
    let mut out = String::with_capacity(name.len());
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(&escape(chunk.valid()));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// [`shown`] of the name the JSON fields `path` and `path_hex` stand for (`path` escaped
/// when `path_hex` does not decode).
pub fn shown_fields(path: &str, path_hex: Option<&str>) -> String {
    match decode(path, path_hex) {
        Ok(name) => shown(&name),
        Err(_) => escape(path).into_owned(),
    }
}

#[cfg(test)]
#[path = "file_name_tests.rs"]
mod tests;
