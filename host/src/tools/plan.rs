//! `update_plan`: the model sets its plan, a checklist of steps. The call changes nothing on
//! disk; its arguments and result are committed like any call's, and the plan is read back
//! from them ([`crate::domain::plan::PlanState`]).

use crate::domain::builtin::UPDATE_PLAN;
use crate::domain::plan::{MAX_STEPS, Plan};
use crate::domain::{Tool, ToolContext, ToolOutput, ToolSpec};

/// The `update_plan` tool.
#[derive(Debug, Default)]
pub struct UpdatePlan;

impl Tool for UpdatePlan {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: UPDATE_PLAN.to_owned(),
            description: format!(
                "Set your plan for a task of several steps: the whole list each time, every step \
                 `pending`, `in_progress` (at most one) or `done`. Call it when you start such a \
                 task and whenever a step is done or the plan changes; the person sees it as a \
                 checklist, and you are reminded of open steps left unchanged. At most \
                 {MAX_STEPS} steps."
            ),
            input_schema: serde_json::json!({
                "type": "object",
                "properties": {
                    "explanation": {"type": "string", "description": "Why the plan changed (optional, short)."},
                    "plan": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "step": {"type": "string", "description": "One line."},
                                "status": {"type": "string", "enum": ["pending", "in_progress", "done"]}
                            },
                            "required": ["step", "status"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["plan"],
                "additionalProperties": false
            }),
        }
    }

    fn run(&mut self, arguments: &serde_json::Value, _: &mut ToolContext<'_>) -> ToolOutput {
        match Plan::parse(arguments) {
            Ok(plan) => ToolOutput::ok(plan.summary()),
            Err(err) => ToolOutput::error(format!("update_plan: {err}")),
        }
    }
}
