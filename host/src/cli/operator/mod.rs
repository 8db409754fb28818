//! The operator's commands: `warden config show`, `warden audit` and `warden doctor`.
//!
//! - `args`: the commands ([`OperatorCommand`]) and their dispatch.
//! - `config_show`: `config show`, every effective value and where it came from.
//! - `audit`: `audit`, what left the machine, per turn.
//! - `audit_verify`: `audit verify`, each audit log's hash chain; `audit_sign`: `audit sign`
//!   and `verify --key`, chain heads signed with an operator's key.
//! - `doctor`: `doctor`, the checks an operator runs first (`doctor_shell`: the `shell`
//!   tool's sandbox, piece by piece; `doctor_signing`: the signature policy and each plugin
//!   under it; `doctor_telemetry`: the OpenTelemetry exporter and what its last export reached).

mod args;
mod audit;
mod audit_sign;
mod audit_verify;
mod config_show;
mod doctor;
pub(crate) mod doctor_hooks;
mod doctor_secrets;
mod doctor_shell;
mod doctor_signing;
mod doctor_telemetry;

pub(super) use args::OperatorCommand;
