//! The worker: one session's turns, with the commit rules of the design.
//!
//! - [`Worker`]: one session's turns ([`Worker::submit`]), assembled from [`WorkerParts`]
//!   (the standard assembly from configuration is the `setup` layer above).
//! - `chain`: the interceptor chain and its one runner for every call point, prompt-side and
//!   tool-side, used by the turn and by [`preview`].
//! - `prompt`: steps 1–2 of a turn (resolve references, `on-prompt-submit`), shared with
//!   [`preview`].
//! - [`Hooks`]: fan-out of events to observer plugins.
//! - [`ToolRegistry`]: the tools the model may call, each with its [`ToolOwner`] plugin.
//! - `tool_chain`: `pre-tool-call` through the chain's one runner (first deny wins, rewrites
//!   carry on); `outcome`: a tool call's outcome as one typed record, from which its hooks'
//!   events, committed result and audit record are made.
//! - [`preview`]: what a prompt would commit, without a model call or a write.
//! - [`undo`]: put back what the last turns' built-in writes changed.
//! - [`replay`]: what one plugin would decide on a recorded session, beside the chain then
//!   (from the call points the audit log recorded as they happened).

pub mod audit_sign;
mod chain;
mod error;
mod hooks;
mod outcome;
pub mod preview;
mod prompt;
pub mod replay;
mod session_diff;
mod tool_chain;
mod tools;
mod turn;
pub mod undo;
mod validate;

pub use chain::ChainEntry;
pub use error::WorkerError;
pub use hooks::Hooks;
pub use outcome::{ApprovalAnswer, Rewrite, ToolCallOutcome};
pub use tool_chain::{PreToolRun, run_pre_tool};
pub use tools::{DuplicateTool, ToolClash, ToolOwner, ToolRegistry};
pub use turn::{
    BYTES_PER_TOKEN, Compacted, ContextPart, DEFAULT_SYSTEM_PROMPT, PERSON_RAN, ServedCall,
    TurnOutcome, Worker, WorkerParts,
};
