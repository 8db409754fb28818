//! [`PluginFailure`]: a plugin call that did not answer — which plugin, at which call point, and
//! why (kept as the error's `source()`, never flattened to a string). Nothing here knows how
//! plugins run.

use std::error::Error;
use std::fmt;

/// A call to a plugin that failed: a trap, a deadline, output over its caps, or anything an
/// in-process implementation reports.
#[derive(Debug)]
pub struct PluginFailure {
    plugin: String,
    point: String,
    cause: Box<dyn Error + Send + Sync + 'static>,
}

/// The cause of a failure built from a message: it names the plugin and the call point.
#[derive(Debug)]
struct Failed {
    plugin: String,
    point: String,
    message: String,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "plugin {}: {} failed: {}",
            self.plugin, self.point, self.message
        )
    }
}

impl Error for Failed {}

impl PluginFailure {
    /// A failure of `plugin` at `point` because of `cause`. The cause's message is what the
    /// person sees, so it must name the plugin and the call point (the wasm adapters' errors
    /// do).
    pub fn from_cause(
        plugin: impl Into<String>,
        point: impl Into<String>,
        cause: impl Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            plugin: plugin.into(),
            point: point.into(),
            cause: Box::new(cause),
        }
    }

    /// A failure of `plugin` at `point` described by `message`
    /// (shown as `plugin <name>: <point> failed: <message>`).
    pub fn new(
        plugin: impl Into<String>,
        point: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let (plugin, point) = (plugin.into(), point.into());
        Self {
            cause: Box::new(Failed {
                plugin: plugin.clone(),
                point: point.clone(),
                message: message.into(),
            }),
            plugin,
            point,
        }
    }

    /// The plugin's configured name.
    pub fn plugin(&self) -> &str {
        &self.plugin
    }

    /// The call point (`on-prompt-submit`, `resolve`, …).
    pub fn point(&self) -> &str {
        &self.point
    }

    /// The cause, downcast to a concrete error type.
    pub fn cause<E: Error + 'static>(&self) -> Option<&E> {
        self.cause.downcast_ref::<E>()
    }
}

impl fmt::Display for PluginFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The cause names the plugin and the call point (see `from_cause`).
        fmt::Display::fmt(&self.cause, f)
    }
}

impl Error for PluginFailure {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(self.cause.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_failure_names_plugin_and_point() {
        let failure = PluginFailure::new("guard", "on-prompt-submit", "refused");
        assert_eq!(
            failure.to_string(),
            "plugin guard: on-prompt-submit failed: refused"
        );
        assert_eq!(failure.plugin(), "guard");
        assert_eq!(failure.point(), "on-prompt-submit");
        assert!(failure.source().is_some());
    }

    #[test]
    fn a_cause_is_kept_as_the_source() {
        let io = std::io::Error::other("plugin p: resolve trapped: boom");
        let failure = PluginFailure::from_cause("p", "resolve", io);
        assert_eq!(failure.to_string(), "plugin p: resolve trapped: boom");
        assert!(failure.cause::<std::io::Error>().is_some());
    }
}
