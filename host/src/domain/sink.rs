//! What a front end receives while a turn runs.

use super::alert::Alert;
use super::approval::{Approval, AskWhy, Settled};
use super::item::ToolCall;
use super::report::RefReport;
use super::stream::StreamEvent;

/// Receives what the person should see during a turn: alerts (never sent to the model) and the
/// answer as it streams in.
pub trait TurnSink {
    /// An alert was raised.
    fn alert(&mut self, alert: &Alert);
    /// Something arrived from the model while it answers.
    fn model_event(&mut self, event: &StreamEvent);
    /// A tool is about to run.
    fn tool_started(&mut self, name: &str, arguments: &serde_json::Value) {
        let _ = (name, arguments);
    }
    /// `call` needs the person's approval (its plugin says `approve = "ask"`, or the
    /// permission mode asks, as `why` says): ask and answer. A front end that cannot ask keeps
    /// this default, which denies.
    fn approve_tool(&mut self, call: &ToolCall, why: &AskWhy) -> Approval {
        let _ = call;
        Approval::No(format!("{} and no one could be asked", why.requirement()))
    }
    /// `call` (with the arguments the tool received, or that were asked for when denied) was
    /// settled: it ran, or was denied.
    fn tool_settled(&mut self, call: &ToolCall, settled: &Settled) {
        let _ = (call, settled);
    }
    /// The prompt was committed with these references (one report per `@` mention).
    fn files_attached(&mut self, refs: &[RefReport]) {
        let _ = refs;
    }
}

/// A sink that only collects alerts (for `preview`, tests and embedding).
#[derive(Debug, Default)]
pub struct CollectingSink {
    /// Alerts raised, in order.
    pub alerts: Vec<Alert>,
    /// Answer text streamed, concatenated.
    pub streamed: String,
}

impl TurnSink for CollectingSink {
    fn alert(&mut self, alert: &Alert) {
        self.alerts.push(alert.clone());
    }

    fn model_event(&mut self, event: &StreamEvent) {
        if let StreamEvent::TextDelta(text) = event {
            self.streamed.push_str(text);
        }
    }
}
