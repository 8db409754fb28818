//! `policy.allow_escalation`: which kinds of per-command escalation (`shell`'s `escalate`)
//! may be asked for at all. `true` allows every kind, `false` none, a list the kinds it names
//! (`["network", "git"]`); unset, `network` and `git` (each still asks the person), never
//! `unsandboxed`. The user layer sets it, a project layer can only narrow it, and the
//! managed layer's setting replaces both.

use serde::{Deserialize, Serialize};

use crate::domain::EscalationKind;

/// `policy.allow_escalation` as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AllowEscalation {
    /// `true` (every kind) or `false` (none).
    All(bool),
    /// The kinds allowed.
    Kinds(Vec<EscalationKind>),
}

impl AllowEscalation {
    /// The kinds allowed when nothing is set.
    pub const DEFAULT: [EscalationKind; 2] = [EscalationKind::Network, EscalationKind::Git];

    /// The kinds it allows.
    pub fn kinds(&self) -> Vec<EscalationKind> {
        match self {
            Self::All(true) => EscalationKind::ALL.to_vec(),
            Self::All(false) => Vec::new(),
            Self::Kinds(kinds) => EscalationKind::ALL
                .into_iter()
                .filter(|k| kinds.contains(k))
                .collect(),
        }
    }

    /// Only what both allow.
    pub fn narrowed(&self, by: &Self) -> Self {
        let by = by.kinds();
        Self::Kinds(
            self.kinds()
                .into_iter()
                .filter(|k| by.contains(k))
                .collect(),
        )
    }
}

/// The kinds `setting` allows (unset: [`AllowEscalation::DEFAULT`]).
pub fn escalation_kinds(setting: Option<&AllowEscalation>) -> Vec<EscalationKind> {
    setting.map_or_else(|| AllowEscalation::DEFAULT.to_vec(), AllowEscalation::kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_allows_network_and_git_and_a_project_only_narrows() {
        assert_eq!(
            escalation_kinds(None),
            [EscalationKind::Network, EscalationKind::Git]
        );
        let user = AllowEscalation::All(true);
        assert_eq!(user.kinds().len(), 3);
        let project =
            AllowEscalation::Kinds(vec![EscalationKind::Git, EscalationKind::Unsandboxed]);
        let narrowed = AllowEscalation::Kinds(vec![EscalationKind::Network]).narrowed(&project);
        assert!(narrowed.kinds().is_empty());
        assert_eq!(
            user.narrowed(&project).kinds(),
            [EscalationKind::Git, EscalationKind::Unsandboxed]
        );
    }

    #[test]
    fn it_reads_as_a_boolean_or_a_list() {
        #[derive(Deserialize)]
        struct P {
            allow_escalation: AllowEscalation,
        }
        let p: P = toml::from_str("allow_escalation = false").unwrap();
        assert!(p.allow_escalation.kinds().is_empty());
        let p: P = toml::from_str("allow_escalation = [\"git\"]").unwrap();
        assert_eq!(p.allow_escalation.kinds(), [EscalationKind::Git]);
        assert!(toml::from_str::<P>("allow_escalation = [\"root\"]").is_err());
    }
}
