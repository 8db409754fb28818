//! What the last export reached (`<home>/telemetry-state.json`), for `warden doctor`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Report;

/// The file, under warden's home.
pub(crate) const STATE_FILE: &str = "telemetry-state.json";

/// The exporter's state as the last process that exported left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportState {
    /// The endpoint.
    pub endpoint: String,
    /// When it ended, in seconds since the epoch.
    pub at_unix_s: u64,
    /// Audit events handed over, and sent.
    pub logs: (u64, u64),
    /// Spans ended, and sent.
    pub spans: (u64, u64),
    /// Metric exports that failed.
    pub metric_failures: u64,
    /// The last error.
    pub last_error: Option<String>,
}

impl ExportState {
    /// Records not sent.
    pub fn lost(&self) -> u64 {
        self.logs.0.saturating_sub(self.logs.1) + self.spans.0.saturating_sub(self.spans.1)
    }
}

pub(crate) fn write(path: &Path, endpoint: &str, report: &Report) {
    let state = ExportState {
        endpoint: endpoint.to_owned(),
        at_unix_s: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        logs: report.logs,
        spans: report.spans,
        metric_failures: report.metric_failures,
        last_error: report.last_error.clone(),
    };
    if let Ok(text) = serde_json::to_vec_pretty(&state) {
        let tmp = path.with_extension("json.tmp");
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, path);
        }
    }
}

/// The state the last export left under `home`, if any (and readable).
pub fn read_state(home: &Path) -> Option<ExportState> {
    let text = std::fs::read(home.join(STATE_FILE)).ok()?;
    serde_json::from_slice(&text).ok()
}
