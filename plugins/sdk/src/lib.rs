//! Write warden plugins in Rust.
//!
//! Enable exactly one world feature (`interceptor`, `hook` or `resolver`), implement that
//! world's trait once and call its export macro: [`export_interceptor!`], [`export_hook!`] or
//! [`export_resolver!`]. See the crate README for a complete plugin.

#![warn(missing_docs)]

extern crate self as warden_plugin;

#[cfg(any(
    all(feature = "interceptor", feature = "hook"),
    all(feature = "interceptor", feature = "resolver"),
    all(feature = "hook", feature = "resolver"),
))]
compile_error!("enable exactly one of the features `interceptor`, `hook`, `resolver`");

#[cfg(not(any(feature = "interceptor", feature = "hook", feature = "resolver")))]
compile_error!("enable one of the features `interceptor`, `hook`, `resolver`");

mod config;
mod log;
mod slot;
mod types;

#[cfg(feature = "hook")]
pub mod hook;
#[cfg(feature = "interceptor")]
pub mod interceptor;
#[cfg(feature = "resolver")]
pub mod resolver;

pub use config::Config;
pub use log::{LogLevel, log};
pub use types::*;

#[doc(hidden)]
pub mod __private {
    pub use crate::slot::{Slot, init_slot};
    pub use wit_bindgen;
}
