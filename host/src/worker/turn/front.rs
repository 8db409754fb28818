//! What an interactive front end asks of a worker between turns.

use super::Worker;
use crate::domain::Segment;
use crate::llm::CancelToken;
use crate::worker::preview::{Preview, preview_segments};

impl Worker {
    /// A fresh cancellation token for the next turn (a cancelled token stays cancelled), also
    /// returned by [`Worker::cancel_token`] from now on.
    pub fn new_cancel_token(&mut self) -> CancelToken {
        self.cancel = CancelToken::new();
        self.cancel.clone()
    }

    /// What `segments` would commit in this session's configuration: no model call, nothing
    /// written, nothing remembered as shown.
    pub fn preview(&mut self, segments: &[Segment]) -> Preview {
        preview_segments(
            segments,
            self.resolver.as_mut(),
            &mut self.chain,
            &self.config,
        )
    }

    /// Each file this session's turns changed (and undo has not put back), its content before
    /// the first change against what is there now.
    pub fn session_diff(&self) -> Result<Vec<crate::domain::FileChange>, String> {
        let dir = self
            .writer
            .path()
            .parent()
            .ok_or_else(|| "the session has no directory".to_owned())?;
        crate::worker::session_diff::session_diff(
            dir,
            &self.writer.header().workspace,
            &self.config.fileref,
        )
    }

    /// The model the next request names: `model.name`, or the provider's default.
    pub fn model_in_use(&self) -> String {
        self.model_name()
    }

    /// Name `model` in the next requests of this worker (same provider). The caller checks
    /// managed policy's lock on `model.name` first (it names the file and line).
    pub fn set_model(&mut self, model: &str) {
        self.config.model.name = Some(model.to_owned());
    }

    /// The configuration the worker runs with.
    pub fn config(&self) -> &crate::config::Config {
        &self.config
    }
}
