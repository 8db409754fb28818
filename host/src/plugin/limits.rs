//! Per-plugin resource limits.

use std::time::Duration;

use crate::config::plugin_defaults;

/// Longest plugin-supplied message (a cancel reason, a resolver's error) kept, after escaping.
pub(crate) const MAX_PLUGIN_STRING: usize = 1024;

/// Limits applied to every call of one plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deadline of one call (including a fresh instance's `init`).
    pub timeout: Duration,
    /// Cap on linear memory, in bytes.
    pub memory_bytes: usize,
    /// Cap on items one call may return.
    pub max_items: usize,
    /// Cap on the total bytes of what one call returns.
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_millis(1000),
            memory_bytes: 64 << 20,
            max_items: 64,
            max_output_bytes: 256 << 10,
        }
    }
}

impl Limits {
    /// Limits from a `[[plugins]]` entry, never above the built-in ceilings (configuration
    /// loading clamps and warns first; this is the backstop for entries built in code).
    pub fn from_entry(entry: &crate::config::PluginEntry) -> Self {
        let timeout_ms = entry.timeout_ms.clamp(1, plugin_defaults::MAX_TIMEOUT_MS);
        let memory_mb = entry.memory_mb.min(plugin_defaults::MAX_MEMORY_MB);
        Self {
            timeout: Duration::from_millis(timeout_ms),
            memory_bytes: usize::try_from(memory_mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX),
            max_items: usize::try_from(entry.max_items).unwrap_or(usize::MAX),
            max_output_bytes: usize::try_from(entry.max_output_bytes).unwrap_or(usize::MAX),
        }
    }
}
