//! `warden doctor`'s lines for the `shell` tool: each piece of its sandbox (user, mount and
//! network namespaces, Landlock and its ABI, seccomp), available or not and why, probed by the
//! launcher itself in a throw-away process; whether per-host network (`allowed_hosts`) works
//! here; and the Unix sockets commands may reach (`unix_sockets`).

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
                let hosts_set = !shell.network && !shell.allowed_hosts.is_empty();
                if piece.ok {
                    report.ok(&format!("shell sandbox: {}{detail}", piece.name));
                } else if piece.optional && hosts_set {
                    report.fail(&format!(
                        "shell sandbox: {} missing{detail}; `shell` is refused while `[tools.shell] allowed_hosts` is set",
                        piece.name
                    ));
                } else if piece.optional {
                    report.info(&format!(
                        "shell sandbox: {} not available here{detail}; `[tools.shell] allowed_hosts` would be refused",
                        piece.name
                    ));
                } else {
                    report.fail(&format!(
                        "shell sandbox: {} missing{detail}; `shell` is refused",
                        piece.name
                    ));
                }
            }
            let network = if shell.network {
                "granted".to_owned()
            } else if shell.allowed_hosts.is_empty() {
                "cut off".to_owned()
            } else {
                format!(
                    "{} only (through the proxy)",
                    shell.allowed_hosts.join(", ")
                )
            };
            report.info(&format!(
                "shell: network {network}, deadline {} s, {} hidden path(s) besides the deny globs",
                shell.timeout_s,
                shell.hide.len()
            ));
            let sockets = if shell.unix_sockets.is_empty() {
                "none besides the sandbox's own".to_owned()
            } else {
                let paths: Vec<String> = shell
                    .unix_sockets
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                format!("{} and the sandbox's own", paths.join(", "))
            };
            report.info(&format!("shell: Unix sockets reachable: {sockets}"));
        }
        Err(err) => report.fail(&format!("shell sandbox: {err}")),
    }
}
