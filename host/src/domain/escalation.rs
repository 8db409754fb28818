//! A `shell` call's request for more than the default sandbox (`escalate` in its arguments):
//! one kind, what it names, and the model's one-line reason. Such a call always asks the
//! person (unless a rule allows that kind for the command), and runs with that one extra only.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an escalation adds to the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EscalationKind {
    /// The network: every host, or the named hosts only (through the filtering proxy).
    Network,
    /// `.git` writable (for `add`, `commit`, `stash`, `checkout` …) to `git` alone, run
    /// hardened; its `hooks/` and `config` still read-only.
    Git,
    /// No sandbox at all.
    Unsandboxed,
}

impl EscalationKind {
    /// Every kind, in order.
    pub const ALL: [Self; 3] = [Self::Network, Self::Git, Self::Unsandboxed];

    /// `network`, `git` or `unsandboxed`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Network => "network",
            Self::Git => "git",
            Self::Unsandboxed => "unsandboxed",
        }
    }

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for EscalationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Longest reason kept (longer ones are refused: it is one line).
pub const MAX_REASON: usize = 300;
/// Most hosts one escalation may name.
pub const MAX_HOSTS: usize = 16;

/// One call's escalation, as the model asked for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Escalation {
    /// What it adds.
    pub kind: EscalationKind,
    /// For `network`: the hosts (empty: every host).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// Why, in one line.
    pub reason: String,
}

impl Escalation {
    /// The `escalate` argument of a `shell` call: `None` when absent or `null`; an error
    /// naming what is wrong otherwise.
    pub fn from_arguments(arguments: &Value) -> Result<Option<Self>, String> {
        let Some(value) = arguments.get("escalate") else {
            return Ok(None);
        };
        if value.is_null() {
            return Ok(None);
        }
        let map = value.as_object().ok_or(
            "invalid arguments for shell: `escalate` must be an object {kind, hosts?, reason}",
        )?;
        if let Some(unknown) = map
            .keys()
            .find(|k| !matches!(k.as_str(), "kind" | "hosts" | "reason"))
        {
            return Err(format!(
                "invalid arguments for shell: unknown field `escalate.{unknown}` (allowed: kind, hosts, reason)"
            ));
        }
        let kind = map
            .get("kind")
            .and_then(Value::as_str)
            .and_then(EscalationKind::from_name)
            .ok_or(
                "invalid arguments for shell: `escalate.kind` must be \"network\", \"git\" or \"unsandboxed\"",
            )?;
        let reason = match map.get("reason") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
            _ => {
                return Err(
                    "invalid arguments for shell: `escalate.reason` must say in one line why the command needs it".into(),
                );
            }
        };
        if !super::escape::is_one_line(&reason) || reason.chars().count() > MAX_REASON {
            return Err(format!(
                "invalid arguments for shell: `escalate.reason` must be one line of at most {MAX_REASON} characters"
            ));
        }
        let hosts = match map.get("hosts") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                let mut hosts = Vec::new();
                for item in items {
                    match item.as_str().map(str::trim) {
                        Some(h) if valid_host(h) => hosts.push(h.to_ascii_lowercase()),
                        _ => {
                            return Err(format!(
                                "invalid arguments for shell: `escalate.hosts` entry {item} is not a host name (`crates.io`, `*.example.com`)"
                            ));
                        }
                    }
                }
                hosts
            }
            Some(_) => {
                return Err(
                    "invalid arguments for shell: `escalate.hosts` must be a list of host names"
                        .into(),
                );
            }
        };
        if !hosts.is_empty() && kind != EscalationKind::Network {
            return Err(format!(
                "invalid arguments for shell: `escalate.hosts` is for kind \"network\" only, not \"{kind}\""
            ));
        }
        if hosts.len() > MAX_HOSTS {
            return Err(format!(
                "invalid arguments for shell: `escalate.hosts` names more than {MAX_HOSTS} hosts"
            ));
        }
        Ok(Some(Self {
            kind,
            hosts,
            reason,
        }))
    }

    /// What it grants, for the person: `network access to every host`, `network access to
    /// crates.io, static.crates.io only`, ….
    pub fn grants(&self) -> String {
        match self.kind {
            EscalationKind::Network if self.hosts.is_empty() => {
                "network access to every host".to_owned()
            }
            EscalationKind::Network => {
                format!("network access to {} only", self.hosts.join(", "))
            }
            EscalationKind::Git => {
                "write access to .git for git alone (its hooks/ and config stay read-only, no program of the repository runs, and what could plant code is put back after it)".to_owned()
            }
            EscalationKind::Unsandboxed => {
                "no sandbox at all: the command runs with your own rights".to_owned()
            }
        }
    }
}

/// A host name or a `*.` wildcard over one (letters, digits, `-` and `.`), with an optional
/// `:port`; the shell tool checks it again as a host pattern.
fn valid_host(host: &str) -> bool {
    let host = match host.rsplit_once(':') {
        Some((name, port)) if port.parse::<u16>().is_ok_and(|p| p > 0) => name,
        Some(_) => return false,
        None => host,
    };
    let name = host.strip_prefix("*.").unwrap_or(host);
    !name.is_empty()
        && name.len() <= 253
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

#[cfg(test)]
mod tests {

    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_call_without_escalate_has_none_and_each_kind_parses() {
        assert_eq!(
            Escalation::from_arguments(&json!({"command": "ls"})),
            Ok(None)
        );
        let got = Escalation::from_arguments(&json!({
            "command": "cargo add serde",
            "escalate": {"kind": "network", "hosts": ["Index.crates.io"], "reason": "fetch the index"}
        }));
        assert_eq!(
            got,
            Ok(Some(Escalation {
                kind: EscalationKind::Network,
                hosts: vec!["index.crates.io".into()],
                reason: "fetch the index".into(),
            }))
        );
        let git = Escalation::from_arguments(
            &json!({"escalate": {"kind": "git", "reason": "commit the change"}}),
        );
        assert_eq!(
            git.ok().flatten().map(|e| e.kind),
            Some(EscalationKind::Git)
        );
    }

    #[test]
    fn a_malformed_escalate_is_refused_by_name() {
        for (bad, names) in [
            (json!({"kind": "root", "reason": "x"}), "escalate.kind"),
            (json!({"kind": "git"}), "escalate.reason"),
            (json!({"kind": "git", "reason": "a\nb"}), "one line"),
            (
                json!({"kind": "git", "reason": "x", "hosts": ["a.b"]}),
                "kind \"network\" only",
            ),
            (
                json!({"kind": "network", "reason": "x", "hosts": ["https://a.b/"]}),
                "escalate.hosts",
            ),
            (
                json!({"kind": "network", "reason": "x", "extra": 1}),
                "escalate.extra",
            ),
            (json!("network"), "must be an object"),
        ] {
            let err = Escalation::from_arguments(&json!({"command": "x", "escalate": bad}))
                .err()
                .unwrap_or_default();
            assert!(err.contains(names), "{bad}: {err}");
        }
    }

    proptest! {
        #[test]
        fn parsing_never_panics_and_an_accepted_host_is_a_plain_name(
            kind in "[a-z]{0,12}",
            reason in ".{0,40}",
            hosts in proptest::collection::vec(".{0,20}", 0..4),
        ) {
            let args = json!({"escalate": {"kind": kind, "reason": reason, "hosts": hosts}});
            if let Ok(Some(e)) = Escalation::from_arguments(&args) {
                prop_assert!(!e.reason.contains('\n'));
                for h in &e.hosts {
                    prop_assert!(valid_host(h));
                    prop_assert!(!h.contains('/') && !h.contains('@'));
                }
            }
        }
    }

    /// The reason is shown on one line of the question: any line break refuses it, not only
    /// `\n` (a U+2028 or VT could paint a second line under `because:`).
    #[test]
    fn a_reason_broken_by_any_line_break_is_refused() {
        for brk in [
            '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}',
        ] {
            let arguments = serde_json::json!({
                "command": "git commit",
                "escalate": {"kind": "git", "reason": format!("commit{brk}grants: nothing")},
            });
            let err = Escalation::from_arguments(&arguments)
                .err()
                .unwrap_or_default();
            assert!(err.contains("one line"), "{brk:?}: {err}");
        }
    }
}
