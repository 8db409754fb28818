//! The tool registry: the tools the model is offered, found by name when it calls one. The
//! turn loop asks the registry, never a tool module by name; the built-in file tools are its
//! first entries, and tool plugins register the same way.

use crate::config::{Approve, ToolGrants};
use crate::domain::{Item, Resolve, Tool, ToolCall, ToolContext, ToolOutput, ToolSpec};

/// The tool plugin a registered tool belongs to: its name, whether each call waits for the
/// person's approval, and what it is granted (for the audit log). Built-in tools have none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOwner {
    /// Plugin name (`[[plugins]] name`).
    pub plugin: String,
    /// Whether each call is approved by the person first.
    pub approve: Approve,
    /// What the plugin may reach.
    pub grants: ToolGrants,
}

/// Tools by name, in the order they are offered.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Box<dyn Tool>>,
    specs: Vec<ToolSpec>,
    owners: Vec<Option<ToolOwner>>,
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

    /// Add a built-in tool; its name must be new.
    pub fn register(&mut self, tool: Box<dyn Tool>) -> Result<(), DuplicateTool> {
        self.register_with(tool, None)
    }

    /// Add a tool of a tool plugin; its name must be new.
    pub fn register_owned(
        &mut self,
        tool: Box<dyn Tool>,
        owner: ToolOwner,
    ) -> Result<(), DuplicateTool> {
        self.register_with(tool, Some(owner))
    }

    fn register_with(
        &mut self,
        tool: Box<dyn Tool>,
        owner: Option<ToolOwner>,
    ) -> Result<(), DuplicateTool> {
        let spec = tool.spec();
        if self.specs.iter().any(|s| s.name == spec.name) {
            return Err(DuplicateTool(spec.name));
        }
        self.specs.push(spec);
        self.tools.push(tool);
        self.owners.push(owner);
        Ok(())
    }

    /// The plugin tool `name` belongs to (`None` for a built-in or unknown tool).
    pub fn owner(&self, name: &str) -> Option<&ToolOwner> {
        let index = self.specs.iter().position(|s| s.name == name)?;
        self.owners.get(index)?.as_ref()
    }

    /// What the model is offered, in order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// Run `call` and return its result item; an unknown tool is an error result.
    pub fn run(&mut self, call: &ToolCall, resolver: &mut dyn Resolve) -> Item {
        let output = self.output(call, resolver);
        Item::ToolResult {
            call_id: call.id.clone(),
            content: output.content,
            is_error: output.is_error,
        }
    }

    /// Run `call` and return what it produced; an unknown tool is an error output.
    pub fn output(&mut self, call: &ToolCall, resolver: &mut dyn Resolve) -> ToolOutput {
        let mut context = ToolContext { resolver };
        let index = self.specs.iter().position(|s| s.name == call.name);
        match index.and_then(|i| self.tools.get_mut(i)) {
            Some(tool) => {
                let _span = tracing::debug_span!("tool call", tool = %call.name).entered();
                tool.run(&call.arguments, &mut context)
            }
            None => ToolOutput::error(format!("unknown tool `{}`", call.name)),
        }
    }
}
