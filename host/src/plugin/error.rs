//! Errors of the plugin host. Each names the plugin (or file) and what failed.

use std::path::PathBuf;

use super::version::{PACKAGE, WitVersion};
use crate::domain::PluginFailure;

/// Why a plugin could not be loaded or a call failed.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// The component file could not be read.
    #[error("{path}: cannot read plugin: {source}")]
    Read {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// The bytes are not a component warden can run (core module, garbage, other world,
    /// unknown imports).
    #[error("{what}: {reason}")]
    Refused {
        /// File or plugin name.
        what: String,
        /// One line saying why.
        reason: String,
    },
    /// The component exports a `warden:plugin` interface of a version this host does not run.
    #[error(
        "{what}: targets {PACKAGE}@{version} (export `{export}`); this host supports {}",
        WitVersion::supported_packages()
    )]
    UnsupportedVersion {
        /// File or plugin name.
        what: String,
        /// The version written in the export's name (`(unversioned)` when there is none).
        version: String,
        /// The export naming it.
        export: String,
    },
    /// The sha256 of the component does not match the configured pin.
    #[error(
        "plugin {plugin}: sha256 mismatch: expected {expected}, found {found} (after a rebuild, \
         `warden plugin pin {plugin}` writes the new digest into its [[plugins]] entry)"
    )]
    DigestMismatch {
        /// Plugin name.
        plugin: String,
        /// Configured pin.
        expected: String,
        /// Digest of the file.
        found: String,
    },
    /// Compilation or instantiation failed.
    #[error("plugin {plugin}: {stage} failed: {message}")]
    Load {
        /// Plugin name.
        plugin: String,
        /// `compile`, `link`, `instantiate`.
        stage: &'static str,
        /// Cause.
        message: String,
    },
    /// The plugin's `init` refused its config.
    #[error("plugin {plugin}: init refused its config: {message}")]
    InitRefused {
        /// Plugin name.
        plugin: String,
        /// The plugin's message.
        message: String,
    },
    /// The call ran past its deadline and was interrupted.
    #[error("{}", deadline_message(plugin, call, *timeout_ms, *tries))]
    Deadline {
        /// Plugin name.
        plugin: String,
        /// Export called.
        call: &'static str,
        /// Deadline.
        timeout_ms: u64,
        /// Which failure of the plugin this turn it is (from 2: it was retried once and is not
        /// called again this turn); 0 where turns are not counted.
        tries: u32,
    },
    /// The plugin failed twice in this turn; its remaining calls in the turn are not made.
    #[error(
        "plugin {plugin}: {call} not called: it failed {failures} times this turn (first: {first})"
    )]
    Suspended {
        /// Plugin name.
        plugin: String,
        /// Export that was not called.
        call: &'static str,
        /// Failures this turn.
        failures: u32,
        /// The first failure of the turn.
        first: String,
    },
    /// The call trapped (panic, memory cap, stack overflow, …).
    #[error("plugin {plugin}: {call} trapped: {message}")]
    Trap {
        /// Plugin name.
        plugin: String,
        /// Export called.
        call: &'static str,
        /// Trap message.
        message: String,
    },
    /// The call returned more than the plugin's output caps allow, or invalid items.
    #[error("plugin {plugin}: {call} returned invalid output: {message}")]
    BadOutput {
        /// Plugin name.
        plugin: String,
        /// Export called.
        call: &'static str,
        /// What was wrong.
        message: String,
    },
}

/// See [`PluginError::Deadline`]: the message says when the plugin already had its one more
/// try this turn (which is why a turn can wait twice the deadline).
fn deadline_message(plugin: &str, call: &str, timeout_ms: u64, tries: u32) -> String {
    let retry = match tries {
        0 | 1 => String::new(),
        n => format!(
            " after it was retried once this turn ({n} tries); its further calls this turn are \
             skipped"
        ),
    };
    format!(
        "plugin {plugin}: {call} ran past its {timeout_ms} ms deadline{retry} (raise `timeout_ms` \
         in its [[plugins]] entry if it needs longer)"
    )
}

impl PluginError {
    /// This error as the domain's failure of `plugin` at `point` (kept as its source).
    pub fn into_failure(self, plugin: &str, point: &'static str) -> PluginFailure {
        PluginFailure::from_cause(plugin, point, self)
    }

    /// True when the instance that produced this error must not be used again.
    pub fn poisons_instance(&self) -> bool {
        match self {
            Self::Deadline { .. } | Self::Trap { .. } => true,
            Self::Read { .. }
            | Self::Refused { .. }
            | Self::UnsupportedVersion { .. }
            | Self::DigestMismatch { .. }
            | Self::Load { .. }
            | Self::InitRefused { .. }
            | Self::BadOutput { .. }
            | Self::Suspended { .. } => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsupported_version_names_the_component_and_the_supported_versions() {
        let err = PluginError::UnsupportedVersion {
            what: "plugin p".into(),
            version: "0.9.0".into(),
            export: "warden:plugin/intercept@0.9.0".into(),
        };
        assert_eq!(
            err.to_string(),
            "plugin p: targets warden:plugin@0.9.0 (export `warden:plugin/intercept@0.9.0`); \
             this host supports warden:plugin@0.1.0, warden:plugin@0.2.0, warden:plugin@0.3.0"
        );
        assert!(!err.poisons_instance());
    }
}
