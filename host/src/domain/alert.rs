//! What only the person sees: an [`Alert`] is shown, never sent to the model.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Severity of an [`Alert`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AlertLevel {
    /// For information.
    Info,
    /// Something did not happen as asked (a file ref failed, a plugin failed open).
    Warn,
    /// The turn could not complete.
    Error,
}

/// A message for the person, never sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alert {
    /// Severity.
    pub level: AlertLevel,
    /// What happened, for a person.
    pub message: String,
    /// Who raised it (`fileref`, `plugin:<name>`, `provider`, `host`).
    pub source: String,
}

impl Alert {
    /// A warning from `source`.
    pub fn warn(source: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            level: AlertLevel::Warn,
            message: message.into(),
            source: source.into(),
        }
    }

    /// An error from `source`.
    pub fn error(source: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            level: AlertLevel::Error,
            message: message.into(),
            source: source.into(),
        }
    }

    /// Information from `source`.
    pub fn info(source: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            level: AlertLevel::Info,
            message: message.into(),
            source: source.into(),
        }
    }
}

impl fmt::Display for Alert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            AlertLevel::Info => "info",
            AlertLevel::Warn => "warning",
            AlertLevel::Error => "error",
        };
        write!(f, "{level} [{}]: {}", self.source, self.message)
    }
}
