//! What a front end receives while a turn runs: every [`TurnEvent`] as it happens, and the
//! one question a turn may ask (approval of a tool call).

use super::alert::Alert;
use super::approval::{Approval, AskWhy};
use super::item::ToolCall;
use super::turn_event::TurnEvent;

/// Watches a turn: renders or serialises its events, and answers approval requests.
pub trait TurnSink {
    /// Something happened.
    fn event(&mut self, event: &TurnEvent);
    /// `call` needs the person's approval (its plugin says `approve = "ask"`, or the
    /// permission mode asks, as `why` says): ask and answer. A front end that cannot ask keeps
    /// this default, which denies.
    fn approve_tool(&mut self, call: &ToolCall, why: &AskWhy) -> Approval {
        let _ = call;
        Approval::No(format!("{} and no one could be asked", why.requirement()))
    }
}

/// A sink that only collects alerts and streamed text (for `preview`, tests and embedding).
#[derive(Debug, Default)]
pub struct CollectingSink {
    /// Alerts raised, in order.
    pub alerts: Vec<Alert>,
    /// Answer text streamed, concatenated.
    pub streamed: String,
}

impl TurnSink for CollectingSink {
    fn event(&mut self, event: &TurnEvent) {
        match event {
            TurnEvent::Alert(alert) => self.alerts.push(alert.clone()),
            TurnEvent::TextDelta { text } => self.streamed.push_str(text),
            _ => {}
        }
    }
}
