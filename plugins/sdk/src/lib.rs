//! Write warden plugins in Rust.
//!
//! Enable exactly one world feature (`interceptor`, `hook`, `resolver` or `tool`), implement
//! that world's trait once and call its export macro: [`export_interceptor!`],
//! [`export_hook!`], [`export_resolver!`] or [`export_tool!`]. See the crate README for a
//! complete plugin. This version targets `warden:plugin@0.3.0`.

#![warn(missing_docs)]

extern crate self as warden_plugin;

#[cfg(any(
    all(feature = "interceptor", feature = "hook"),
    all(feature = "interceptor", feature = "resolver"),
    all(feature = "interceptor", feature = "tool"),
    all(feature = "hook", feature = "resolver"),
    all(feature = "hook", feature = "tool"),
    all(feature = "resolver", feature = "tool"),
))]
compile_error!("enable exactly one of the features `interceptor`, `hook`, `resolver`, `tool`");

#[cfg(not(any(
    feature = "interceptor",
    feature = "hook",
    feature = "resolver",
    feature = "tool"
)))]
compile_error!("enable one of the features `interceptor`, `hook`, `resolver`, `tool`");

mod config;
mod log;
mod slot;
mod types;

#[cfg(all(feature = "json", feature = "interceptor"))]
pub mod args;
#[cfg(any(feature = "resolver", feature = "tool"))]
pub mod fs;
#[cfg(feature = "hook")]
pub mod hook;
#[cfg(feature = "interceptor")]
pub mod interceptor;
#[cfg(feature = "interceptor")]
mod prompt;
#[cfg(feature = "resolver")]
pub mod resolver;
#[cfg(feature = "tool")]
pub mod tool;
#[cfg(feature = "tool")]
pub mod workspace;

pub use config::Config;
pub use log::{LEVEL_VARIABLE, LogLevel, log, log_enabled, take_logged};
pub use types::*;

#[doc(hidden)]
pub mod __private {
    pub use crate::slot::{Slot, init_slot};
    pub use wit_bindgen;
}
