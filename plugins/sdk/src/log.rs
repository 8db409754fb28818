//! Logging into the host's log, tagged with the plugin's name.

#[cfg(feature = "hook")]
use crate::hook::bindings::warden::plugin::host;
#[cfg(feature = "interceptor")]
use crate::interceptor::bindings::warden::plugin::host;
#[cfg(feature = "resolver")]
use crate::resolver::bindings::warden::plugin::host;
#[cfg(feature = "tool")]
use crate::tool::bindings::warden::plugin::host;

pub use crate::types::LogLevel;

/// The environment variable in which the host names the least severe level it records for
/// this plugin (`trace`, `debug`, `info`, `warn`, `error` or `off`).
pub const LEVEL_VARIABLE: &str = "WARDEN_LOG_LEVEL";

fn rank(level: LogLevel) -> u8 {
    match level {
        LogLevel::Trace => 0,
        LogLevel::Debug => 1,
        LogLevel::Info => 2,
        LogLevel::Warn => 3,
        LogLevel::Error => 4,
    }
}

/// Whether the host records lines at `level`. Read once from [`LEVEL_VARIABLE`]; without it
/// (an older host), every line is sent and the host decides.
pub fn log_enabled(level: LogLevel) -> bool {
    static LEAST: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
    let least = *LEAST.get_or_init(|| match std::env::var(LEVEL_VARIABLE).as_deref() {
        Ok("debug") => 1,
        Ok("info") => 2,
        Ok("warn") => 3,
        Ok("error") => 4,
        Ok("off") => 5,
        _ => 0,
    });
    rank(level) >= least
}

/// Write one line to the host's log, unless the host does not record its level.
pub fn log(level: LogLevel, message: &str) {
    if log_enabled(level) {
        host::log(level, message);
    }
}

/// Log at `trace` level, `format!` style (formatted only when the host records the level).
#[macro_export]
macro_rules! trace { ($($arg:tt)*) => { if $crate::log_enabled($crate::LogLevel::Trace) { $crate::log($crate::LogLevel::Trace, &::std::format!($($arg)*)) } }; }
/// Log at `debug` level, `format!` style (formatted only when the host records the level).
#[macro_export]
macro_rules! debug { ($($arg:tt)*) => { if $crate::log_enabled($crate::LogLevel::Debug) { $crate::log($crate::LogLevel::Debug, &::std::format!($($arg)*)) } }; }
/// Log at `info` level, `format!` style (formatted only when the host records the level).
#[macro_export]
macro_rules! info { ($($arg:tt)*) => { if $crate::log_enabled($crate::LogLevel::Info) { $crate::log($crate::LogLevel::Info, &::std::format!($($arg)*)) } }; }
/// Log at `warn` level, `format!` style (formatted only when the host records the level).
#[macro_export]
macro_rules! warn { ($($arg:tt)*) => { if $crate::log_enabled($crate::LogLevel::Warn) { $crate::log($crate::LogLevel::Warn, &::std::format!($($arg)*)) } }; }
/// Log at `error` level, `format!` style (formatted only when the host records the level).
#[macro_export]
macro_rules! error { ($($arg:tt)*) => { if $crate::log_enabled($crate::LogLevel::Error) { $crate::log($crate::LogLevel::Error, &::std::format!($($arg)*)) } }; }
