//! The built-in `shell` tool and the Linux sandbox it runs commands in: user, mount, network
//! and PID namespaces plus Landlock, built by the warden binary itself as a single-threaded launcher
//! (`warden __sandbox-exec`) before it runs `sh -c` (see `docs/shell.md`).
//!
//! - [`spec`]: what the launcher is asked to build ([`SandboxSpec`]);
//! - [`launch`]: the launcher; `namespaces`, `dev` (its own `/dev`), `landlock`, `caps` (every
//!   capability dropped), `seccomp`: its pieces; `notify`: the
//!   supervisor answering the command's `connect` calls (its listener passed by `fd_pass`)
//!   and, for a program granted the workspace, its file calls (`files`),
//!   `watch`: the parent half's loop;
//! - [`proxy`]: the host's filtering HTTP proxy for `allowed_hosts` ([`HostProxy`]),
//!   `forward`: the launcher's relay to it from the namespace's loopback, `peer`: who
//!   connected to it;
//! - [`report`]: what the sandbox refused a command, and the line that says so;
//! - [`env`]: the command's environment allowlist; [`hidden`]: the paths hidden from it;
//!   [`own`]: warden's own state and configuration, hidden from every sandboxed process;
//!   [`placeholder`]: the empty `.warden`/`.git` bound read-only where a root has none;
//!   [`planted`]: repositories a command created, moved aside after it;
//!   [`tracked`]: the denied files git tracks anyway (read by `git_index`);
//!   `git_grant`: the `git` escalation's writable `.git`, `git_pin`: bound onto itself so
//!   that it cannot be moved, `git_state`: what in it makes git run code, checked and put
//!   back after the command; [`git_harden`]: the configuration every sandboxed git runs
//!   with (`git_config_scan`: the repositories' drivers it neutralizes);
//! - [`tool`]: the `shell` tool ([`ShellTool`]), `child`: its running command (deadline,
//!   cancellation, group kill, capped output); [`probe`]: what this kernel offers.

pub mod build_cache;
mod caps;
mod child;
pub mod confined;
mod dev;
pub mod env;
mod fd_pass;
mod files;
mod forward;
mod git_config_scan;
mod git_grant;
pub mod git_harden;
mod git_index;
mod git_pin;
mod git_state;
pub mod hidden;
mod landlock;
pub mod launch;
mod namespaces;
mod notify;
pub mod own;
mod peer;
pub mod placeholder;
pub mod planted;
pub mod probe;
pub mod proxy;
mod proxy_request;
mod relevance;
pub mod report;
pub mod run_once;
mod seccomp;
pub mod spec;
pub mod tool;
pub mod tracked;
mod watch;

pub use child::kill_group;
pub use launch::launcher_main;
pub use probe::{PER_HOST_NETWORK, Piece, missing, probe};
pub use proxy::HostProxy;
pub use spec::{LAUNCHER_SUBCOMMAND, PROXY_SOCKET, SandboxSpec};
pub use tool::ShellTool;
