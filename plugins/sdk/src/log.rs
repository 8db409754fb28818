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

/// Write one line to the host's log.
pub fn log(level: LogLevel, message: &str) {
    host::log(level, message);
}

/// Log at `trace` level, `format!` style.
#[macro_export]
macro_rules! trace { ($($arg:tt)*) => { $crate::log($crate::LogLevel::Trace, &::std::format!($($arg)*)) }; }
/// Log at `debug` level, `format!` style.
#[macro_export]
macro_rules! debug { ($($arg:tt)*) => { $crate::log($crate::LogLevel::Debug, &::std::format!($($arg)*)) }; }
/// Log at `info` level, `format!` style.
#[macro_export]
macro_rules! info { ($($arg:tt)*) => { $crate::log($crate::LogLevel::Info, &::std::format!($($arg)*)) }; }
/// Log at `warn` level, `format!` style.
#[macro_export]
macro_rules! warn { ($($arg:tt)*) => { $crate::log($crate::LogLevel::Warn, &::std::format!($($arg)*)) }; }
/// Log at `error` level, `format!` style.
#[macro_export]
macro_rules! error { ($($arg:tt)*) => { $crate::log($crate::LogLevel::Error, &::std::format!($($arg)*)) }; }
