//! Standard output for commands: a closed pipe (`warden session export ID | head`) ends the
//! process quietly instead of panicking.

use std::fmt;
use std::io::{self, Write};

/// Write `args` (and a newline when `newline`) to stdout.
pub(crate) fn write(args: fmt::Arguments<'_>, newline: bool) {
    let mut out = io::stdout().lock();
    let result = out
        .write_fmt(args)
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    if let Err(err) = result {
        if err.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        tracing::warn!("cannot write to stdout: {err}");
    }
}

/// `println!` that survives a closed pipe.
macro_rules! outln {
    () => { $crate::cli::out::write(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!($($arg)*), true) };
}

/// `print!` that survives a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!($($arg)*), false) };
}

pub(crate) use {out, outln};
