//! `warden doctor`'s lines for the `shell` tool: each piece of its sandbox (user, mount and
//! network namespaces, Landlock and its ABI), available or not and why, probed by the launcher
//! itself in a throw-away process.

use super::doctor::Report;
use crate::config::{ShellConfig, ShellSandbox};
use crate::sandbox;

/// One line per piece; a missing piece fails the check (`shell` is then refused).
pub(super) fn check_shell(report: &mut Report, shell: &ShellConfig) {
    if shell.sandbox == ShellSandbox::None {
        report.info(
            "shell: `[tools.shell] sandbox = \"none\"`: commands run unconfined (the operator's choice)",
        );
        return;
    }
    let launcher = match std::env::current_exe() {
        Ok(path) => path,
        Err(err) => {
            report.fail(&format!(
                "shell sandbox: cannot find warden's own executable: {err}"
            ));
            return;
        }
    };
    match sandbox::probe(&launcher) {
        Ok(pieces) => {
            for piece in &pieces {
                let detail = if piece.detail.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", piece.detail)
                };
                if piece.ok {
                    report.ok(&format!("shell sandbox: {}{detail}", piece.name));
                } else {
                    report.fail(&format!(
                        "shell sandbox: {} missing{detail}; `shell` is refused",
                        piece.name
                    ));
                }
            }
            report.info(&format!(
                "shell: network {}, deadline {} s, {} hidden path(s) besides the deny globs",
                if shell.network { "granted" } else { "cut off" },
                shell.timeout_s,
                shell.hide.len()
            ));
        }
        Err(err) => report.fail(&format!("shell sandbox: {err}")),
    }
}
