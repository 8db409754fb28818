//! The built-in `shell` tool and the Linux sandbox it runs commands in: user, mount, network
//! and PID namespaces plus Landlock, built by the warden binary itself as a single-threaded launcher
//! (`warden __sandbox-exec`) before it runs `sh -c` (see `docs/shell.md`).
//!
//! - [`spec`]: what the launcher is asked to build ([`SandboxSpec`]);
//! - [`launch`]: the launcher; `namespaces`, `landlock`: its pieces;
//! - [`env`]: the command's environment allowlist; [`hidden`]: the paths hidden from it;
//! - [`tool`]: the `shell` tool ([`ShellTool`]), `child`: its running command (deadline,
//!   cancellation, group kill, capped output); [`probe`]: what this kernel offers.

mod child;
pub mod env;
pub mod hidden;
mod landlock;
pub mod launch;
mod namespaces;
pub mod probe;
pub mod spec;
pub mod tool;

pub use launch::launcher_main;
pub use probe::{Piece, missing, probe};
pub use spec::{LAUNCHER_SUBCOMMAND, SandboxSpec};
pub use tool::ShellTool;
