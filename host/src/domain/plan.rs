//! The model's plan: the steps an `update_plan` call sets ([`Plan::parse`]), read back from
//! committed history alone ([`PlanState::of`]), and the rule that re-sends its open steps as a
//! `<system-reminder>` when the model left them unchanged for a number of prompts
//! ([`PlanState::reminder`]). Nothing of the plan lives outside the session's history, so a
//! resumed session sees exactly what the model saw.

use std::collections::HashMap;

use serde::Serialize;

use super::builtin::UPDATE_PLAN;
use super::item::Item;

/// Most steps a plan may have.
pub const MAX_STEPS: usize = 50;
/// Longest step, in characters.
pub const MAX_STEP_CHARS: usize = 300;
/// Longest explanation, in characters.
pub const MAX_EXPLANATION_CHARS: usize = 1000;
/// How a plan reminder begins (the rule finds its own reminders in history by it).
pub const REMINDER_HEAD: &str = "<system-reminder>\nThe plan has open steps";

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one step at a time).
    InProgress,
    /// Finished.
    Done,
}

impl StepStatus {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "in_progress" => Some(Self::InProgress),
            "done" | "completed" => Some(Self::Done),
            _ => None,
        }
    }

    /// `pending`, `in_progress` or `done`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Done => "done",
        }
    }

    /// The checklist box: `[ ]`, `[~]` or `[x]`.
    pub fn mark(self) -> &'static str {
        match self {
            Self::Pending => "[ ]",
            Self::InProgress => "[~]",
            Self::Done => "[x]",
        }
    }
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanStep {
    /// What the step does, one line.
    pub step: String,
    /// Where it stands.
    pub status: StepStatus,
}

/// The plan an `update_plan` call set: every step, in order (each call replaces the whole
/// plan).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The steps.
    pub steps: Vec<PlanStep>,
    /// Why the plan changed, when the model said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

/// Why `update_plan`'s arguments are not a plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// `plan` is missing or not an array.
    #[error("`plan` must be an array of {{\"step\", \"status\"}} objects")]
    NotAList,
    /// More steps than allowed.
    #[error("the plan has {0} steps; at most {MAX_STEPS} are allowed")]
    TooManySteps(usize),
    /// A step is not an object with a non-empty one-line `step`.
    #[error("step {0}: `step` must be a non-empty line of at most {MAX_STEP_CHARS} characters")]
    BadStep(usize),
    /// A step's status is not one of the three.
    #[error("step {0}: `status` must be `pending`, `in_progress` or `done`")]
    BadStatus(usize),
    /// Two steps or more are in progress.
    #[error("{0} steps are `in_progress`; at most one step may be in progress at a time")]
    ManyInProgress(usize),
    /// The explanation is not a string, or too long.
    #[error("`explanation` must be a string of at most {MAX_EXPLANATION_CHARS} characters")]
    BadExplanation,
}

impl Plan {
    /// The plan `update_plan`'s `arguments` set: `{"plan": [{"step", "status"}…],
    /// "explanation"?}`. Steps are trimmed; steps numbered from 1 in errors.
    pub fn parse(arguments: &serde_json::Value) -> Result<Self, PlanError> {
        let list = arguments
            .get("plan")
            .and_then(serde_json::Value::as_array)
            .ok_or(PlanError::NotAList)?;
        if list.len() > MAX_STEPS {
            return Err(PlanError::TooManySteps(list.len()));
        }
        let mut steps = Vec::with_capacity(list.len());
        for (i, value) in list.iter().enumerate() {
            let n = i + 1;
            let step = value
                .get("step")
                .and_then(serde_json::Value::as_str)
                .map(str::trim)
                .filter(|s| {
                    !s.is_empty()
                        && super::escape::is_one_line(s)
                        && s.chars().count() <= MAX_STEP_CHARS
                })
                .ok_or(PlanError::BadStep(n))?;
            let status = value
                .get("status")
                .and_then(serde_json::Value::as_str)
                .and_then(StepStatus::parse)
                .ok_or(PlanError::BadStatus(n))?;
            steps.push(PlanStep {
                step: step.to_owned(),
                status,
            });
        }
        let running = steps
            .iter()
            .filter(|s| s.status == StepStatus::InProgress)
            .count();
        if running > 1 {
            return Err(PlanError::ManyInProgress(running));
        }
        let explanation = match arguments.get("explanation") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) if s.chars().count() <= MAX_EXPLANATION_CHARS => {
                Some(s.trim().to_owned()).filter(|s| !s.is_empty())
            }
            Some(_) => return Err(PlanError::BadExplanation),
        };
        Ok(Self { steps, explanation })
    }

    /// The steps not done, in order.
    pub fn open_steps(&self) -> impl Iterator<Item = &PlanStep> {
        self.steps.iter().filter(|s| s.status != StepStatus::Done)
    }

    /// One `[x] step` line per step, in order (unescaped: a front end escapes for its
    /// terminal).
    pub fn checklist(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|s| format!("{} {}", s.status.mark(), s.step))
            .collect()
    }

    /// What the tool answers the model: the count done and the checklist.
    pub fn summary(&self) -> String {
        let done = self.steps.len() - self.open_steps().count();
        let mut text = format!("Plan updated: {done} of {} steps done.", self.steps.len());
        for line in self.checklist() {
            text.push('\n');
            text.push_str(&line);
        }
        text
    }
}

/// The plan as committed history leaves it, and how many prompts were submitted since it was
/// last set (or last reminded).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlanState {
    /// The last plan an `update_plan` call set successfully.
    pub plan: Option<Plan>,
    /// `User` items committed since that call, or since the last plan reminder, whichever
    /// came later.
    pub prompts_since: u32,
}

impl PlanState {
    /// Read `history`, in commit order: a call's plan counts once its result is committed and
    /// is not an error.
    pub fn of<'a>(history: impl IntoIterator<Item = &'a Item>) -> Self {
        let mut state = Self::default();
        let mut asked: HashMap<&str, &serde_json::Value> = HashMap::new();
        for item in history {
            match item {
                Item::Assistant { tool_calls, .. } => {
                    for call in tool_calls.iter().filter(|c| c.name == UPDATE_PLAN) {
                        asked.insert(call.id.as_str(), &call.arguments);
                    }
                }
                Item::ToolResult {
                    call_id, is_error, ..
                } => {
                    if let Some(arguments) = asked.remove(call_id.as_str())
                        && !is_error
                        && let Ok(plan) = Plan::parse(arguments)
                    {
                        state.plan = Some(plan);
                        state.prompts_since = 0;
                    }
                }
                Item::User { .. } => state.prompts_since = state.prompts_since.saturating_add(1),
                Item::System { text } if text.starts_with(REMINDER_HEAD) => {
                    state.prompts_since = 0;
                }
                Item::System { .. } => {}
            }
        }
        state
    }

    /// The reminder due now, when the plan has open steps and `after` prompts (or more) were
    /// submitted since it was set or last reminded; `after == 0` never reminds.
    pub fn reminder(&self, after: u32) -> Option<String> {
        let plan = self.plan.as_ref()?;
        if after == 0 || self.prompts_since < after || plan.open_steps().next().is_none() {
            return None;
        }
        let mut text = format!(
            "{REMINDER_HEAD}, unchanged for the last {} prompts:\n",
            self.prompts_since
        );
        for step in plan.open_steps() {
            // The model's own words, kept from closing the reminder early.
            let words = step.step.replace('<', "‹");
            text.push_str(&format!("- [{}] {words}\n", step.status.as_str()));
        }
        text.push_str(
            "Keep working through them, and call update_plan when a step is done or the plan changes.\n</system-reminder>",
        );
        Some(text)
    }
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
