//! A person's answer when a tool call needs approval (its tool plugin is marked
//! `approve = "ask"`). The front end is asked through [`TurnSink::approve_tool`](super::TurnSink::approve_tool).

/// What the person answered for one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    Yes,
    /// Run this call, and every later call of the same tool for as long as this worker runs
    /// (a `warden chat` session) without asking again.
    Always,
    /// Do not run it; the reason is committed as the call's `is_error` result.
    No(String),
}
