//! Logging into the host's log, tagged with the plugin's name.

#[cfg(all(feature = "hook", target_arch = "wasm32"))]
use crate::hook::bindings::warden::plugin::host;
#[cfg(all(feature = "interceptor", target_arch = "wasm32"))]
use crate::interceptor::bindings::warden::plugin::host;
#[cfg(all(feature = "resolver", target_arch = "wasm32"))]
use crate::resolver::bindings::warden::plugin::host;
#[cfg(all(feature = "tool", target_arch = "wasm32"))]
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
///
/// Built for any target other than wasm (`cargo test` of the plugin's logic), there is no host:
/// the line goes to stderr as `[LEVEL] message` (which the test harness captures per test) and
/// is kept for [`take_logged`].
pub fn log(level: LogLevel, message: &str) {
    if log_enabled(level) {
        #[cfg(target_arch = "wasm32")]
        host::log(level, message);
        #[cfg(not(target_arch = "wasm32"))]
        native::log(level, message);
    }
}

/// The lines logged so far on this thread by a native build (`cargo test`), oldest first; the
/// record is emptied.
#[cfg(not(target_arch = "wasm32"))]
pub fn take_logged() -> Vec<(LogLevel, String)> {
    native::take()
}

/// A wasm build has nothing to return: its lines go to the host.
#[cfg(target_arch = "wasm32")]
pub fn take_logged() -> Vec<(LogLevel, String)> {
    Vec::new()
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::LogLevel;
    use std::cell::RefCell;

    std::thread_local! {
        static LOGGED: RefCell<Vec<(LogLevel, String)>> = const { RefCell::new(Vec::new()) };
    }

    pub(super) fn log(level: LogLevel, message: &str) {
        let name = match level {
            LogLevel::Trace => "TRACE",
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warn => "WARN",
            LogLevel::Error => "ERROR",
        };
        eprintln!("[{name}] {message}");
        LOGGED.with(|logged| logged.borrow_mut().push((level, message.to_owned())));
    }

    pub(super) fn take() -> Vec<(LogLevel, String)> {
        LOGGED.with(|logged| std::mem::take(&mut *logged.borrow_mut()))
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
