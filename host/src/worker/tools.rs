//! The tool registry: the tools the model is offered, found by name when it calls one. The
//! turn loop asks the registry, never a tool module by name; the built-in file tools are its
//! first entries, and tool plugins register the same way.

use crate::domain::{Item, Resolve, Tool, ToolCall, ToolContext, ToolOutput, ToolSpec};

/// Tools by name, in the order they are offered.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Box<dyn Tool>>,
    specs: Vec<ToolSpec>,
}

/// Two tools with the same name.
#[derive(Debug, thiserror::Error)]
#[error("two tools are named `{0}`; tool names must be unique")]
pub struct DuplicateTool(pub String);

impl ToolRegistry {
    /// No tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry of `tools`, in order.
    pub fn with(tools: Vec<Box<dyn Tool>>) -> Result<Self, DuplicateTool> {
        let mut registry = Self::new();
        for tool in tools {
            registry.register(tool)?;
        }
        Ok(registry)
    }

    /// Add a tool; its name must be new.
    pub fn register(&mut self, tool: Box<dyn Tool>) -> Result<(), DuplicateTool> {
        let spec = tool.spec();
        if self.specs.iter().any(|s| s.name == spec.name) {
            return Err(DuplicateTool(spec.name));
        }
        self.specs.push(spec);
        self.tools.push(tool);
        Ok(())
    }

    /// What the model is offered, in order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// Run `call` and return its result item; an unknown tool is an error result.
    pub fn run(&mut self, call: &ToolCall, resolver: &mut dyn Resolve) -> Item {
        let mut context = ToolContext { resolver };
        let index = self.specs.iter().position(|s| s.name == call.name);
        let output = match index.and_then(|i| self.tools.get_mut(i)) {
            Some(tool) => {
                let _span = tracing::debug_span!("tool call", tool = %call.name).entered();
                tool.run(&call.arguments, &mut context)
            }
            None => ToolOutput::error(format!("unknown tool `{}`", call.name)),
        };
        Item::ToolResult {
            call_id: call.id.clone(),
            content: output.content,
            is_error: output.is_error,
        }
    }
}
