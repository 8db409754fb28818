//! The tool registry: the tools the model is offered, found by name when it calls one. The
//! turn loop asks the registry, never a tool module by name; the built-in file tools are its
//! first entries, and tool plugins register the same way, each with its [`ToolOwner`] (the
//! plugin's name, its `approve` setting and its failure policy).

use crate::config::{Approve, FailurePolicy, FsGrant, ToolGrants};
use crate::domain::builtin::{ToolEffect, builtin_effect};
use crate::domain::{Item, Resolve, Tool, ToolCall, ToolContext, ToolOutput, ToolSpec};

/// The tool plugin that serves a tool, what it is granted (for the audit log), and how its
/// calls are treated. Built-in tools have none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOwner {
    /// The plugin's configured name.
    pub plugin: String,
    /// Whether each call waits for the person's approval.
    pub approve: Approve,
    /// What the plugin may reach.
    pub grants: ToolGrants,
    /// What a failure of the plugin itself does (`open`: an error result; `closed`: the turn
    /// ends).
    pub failure: FailurePolicy,
    /// Set for an MCP server's tools: the server's name (then `plugin` is `mcp:<server>`).
    /// Its calls count as commands for the permission mode.
    pub mcp: Option<String>,
}

impl ToolOwner {
    /// `plugin `x`` or `MCP server `x``, for messages.
    pub fn describe(&self) -> String {
        match &self.mcp {
            Some(server) => format!("MCP server `{server}`"),
            None => format!("plugin `{}`", self.plugin),
        }
    }
}

/// Tools by name, in the order they are offered.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Box<dyn Tool>>,
    specs: Vec<ToolSpec>,
    /// Per tool: its plugin, or `None` for a built-in tool.
    owners: Vec<Option<ToolOwner>>,
    /// Known secret values, masked in every output before anything else sees it.
    redactor: std::sync::Arc<crate::domain::redact::Redactor>,
}

/// A plugin's tool whose name is already taken, by a built-in tool or another plugin's.
#[derive(Debug, thiserror::Error)]
#[error(
    "{plugin} offers a tool named `{tool}`, which {taken_by} already offers; tool names must be unique (rename or remove one of them)"
)]
pub struct ToolClash {
    /// The tool name.
    pub tool: String,
    /// Who registers it: `plugin `x`` or `MCP server `x``.
    pub plugin: String,
    /// Who has it: `the built-in tools` or `plugin `x``.
    pub taken_by: String,
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

    /// Mask the values `redactor` knows in every output from now on.
    pub fn set_redactor(&mut self, redactor: std::sync::Arc<crate::domain::redact::Redactor>) {
        self.redactor = redactor;
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
        let spec = tool.spec();
        if self.index(&spec.name).is_some() {
            return Err(DuplicateTool(spec.name));
        }
        self.specs.push(spec);
        self.tools.push(tool);
        self.owners.push(None);
        Ok(())
    }

    /// Add a tool plugin's tool; its name must be new (the error names both owners).
    pub fn register_plugin_tool(
        &mut self,
        tool: Box<dyn Tool>,
        owner: ToolOwner,
    ) -> Result<(), ToolClash> {
        let spec = tool.spec();
        if let Some(i) = self.index(&spec.name) {
            return Err(ToolClash {
                tool: spec.name,
                plugin: owner.describe(),
                taken_by: match self.owners.get(i).cloned().flatten() {
                    Some(other) => other.describe(),
                    None => "the built-in tools".to_owned(),
                },
            });
        }
        self.specs.push(spec);
        self.tools.push(tool);
        self.owners.push(Some(owner));
        Ok(())
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.specs.iter().position(|s| s.name == name)
    }

    /// A turn starts: every tool's per-turn failure count starts again (call at the start of
    /// each turn).
    pub fn new_turn(&mut self) {
        for tool in &mut self.tools {
            tool.new_turn();
        }
    }

    /// The plugin that serves tool `name`; `None` for a built-in or unknown tool.
    pub fn owner(&self, name: &str) -> Option<&ToolOwner> {
        self.index(name)
            .and_then(|i| self.owners.get(i))
            .and_then(Option::as_ref)
    }

    /// What a call of tool `name` may do, which the permission mode judges (`None`: no such
    /// tool; the call is an error result). A built-in tool's effect is its name's
    /// ([`builtin_effect`]; a built-in the list does not name counts as the most, `Shell`);
    /// a tool plugin's tools write when its entry grants `fs = "read-write"`, and only read
    /// otherwise (a tool without a file-system grant cannot change the workspace); an MCP
    /// server's tools count as commands (`Shell`), whatever the server is granted.
    pub fn effect(&self, name: &str) -> Option<ToolEffect> {
        let i = self.index(name)?;
        Some(match self.owners.get(i).and_then(Option::as_ref) {
            // An MCP server acts beyond the workspace (its own process, or a remote service).
            Some(owner) if owner.mcp.is_some() => ToolEffect::Shell,
            Some(owner) if owner.grants.fs == FsGrant::ReadWrite => ToolEffect::Write,
            Some(_) => ToolEffect::Read,
            None => builtin_effect(name).unwrap_or(ToolEffect::Shell),
        })
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
        self.output_cancellable(call, resolver, &|| false)
    }

    /// [`ToolRegistry::output`] for a turn that `cancelled` says may be cancelled meanwhile.
    pub fn output_cancellable(
        &mut self,
        call: &ToolCall,
        resolver: &mut dyn Resolve,
        cancelled: &dyn Fn() -> bool,
    ) -> ToolOutput {
        let mut context = ToolContext {
            resolver,
            cancelled,
        };
        // A masked value written back would replace the real one in the person's file.
        if let Some(name) = ["content", "new_string"]
            .iter()
            .filter_map(|key| call.arguments.get(*key).and_then(serde_json::Value::as_str))
            .find_map(|text| self.redactor.placeholder_in(text))
        {
            return ToolOutput::error(format!(
                "not written: the text holds `[REDACTED:{name}]`, which stands for a secret warden kept from you; writing it would replace the real value in the file. Leave that part out (edit around it with `edit_file`)"
            ));
        }
        let mut output = match self.index(&call.name).and_then(|i| self.tools.get_mut(i)) {
            Some(tool) => {
                let _span = crate::trace::span("tool run").with("tool", &call.name);
                tool.run(&call.arguments, &mut context)
            }
            None => ToolOutput::error(format!("unknown tool `{}`", call.name)),
        };
        // A known secret in the output never reaches the model, history, audit or a screen.
        if let (std::borrow::Cow::Owned(masked), _) = self.redactor.mask(&output.content) {
            output.content = masked;
        }
        output
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FileRefConfig;
    use crate::fileref::tools::file_tools;

    struct Named(&'static str);

    impl Tool for Named {
        fn spec(&self) -> ToolSpec {
            ToolSpec {
                name: self.0.to_owned(),
                description: String::new(),
                input_schema: serde_json::json!({"type": "object"}),
            }
        }

        fn run(&mut self, _: &serde_json::Value, _: &mut ToolContext<'_>) -> ToolOutput {
            ToolOutput::ok("")
        }
    }

    fn owner(plugin: &str) -> ToolOwner {
        ToolOwner {
            plugin: plugin.to_owned(),
            approve: Approve::Ask,
            grants: ToolGrants::default(),
            failure: FailurePolicy::Closed,
            mcp: None,
        }
    }

    #[test]
    fn plugin_tools_have_owners_and_clashes_name_both() {
        let mut registry = ToolRegistry::with(file_tools(&FileRefConfig::default())).unwrap();
        registry
            .register_plugin_tool(Box::new(Named("grep")), owner("search"))
            .unwrap();
        assert_eq!(registry.owner("grep"), Some(&owner("search")));
        assert_eq!(registry.owner("read_file"), None);

        let err = registry
            .register_plugin_tool(Box::new(Named("read_file")), owner("evil"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("plugin `evil` offers a tool named `read_file`, which the built-in tools already offer"),
            "{err}"
        );
        let err = registry
            .register_plugin_tool(Box::new(Named("grep")), owner("other"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("which plugin `search` already offers"),
            "{err}"
        );
        let names: Vec<&str> = registry.specs().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["read_file", "list_files", "grep"]);
    }

    #[test]
    fn mcp_tools_count_as_commands_and_clashes_name_the_server() {
        let mut registry = ToolRegistry::new();
        let mcp = |server: &str| ToolOwner {
            plugin: format!("mcp:{server}"),
            mcp: Some(server.to_owned()),
            grants: ToolGrants {
                fs: FsGrant::ReadWrite,
                ..ToolGrants::default()
            },
            ..owner("unused")
        };
        registry
            .register_plugin_tool(Box::new(Named("mcp__docs__find")), mcp("docs"))
            .unwrap();
        assert_eq!(registry.effect("mcp__docs__find"), Some(ToolEffect::Shell));
        let err = registry
            .register_plugin_tool(Box::new(Named("mcp__docs__find")), owner("evil"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("plugin `evil` offers a tool named `mcp__docs__find`, which MCP server `docs` already offers"),
            "{err}"
        );
    }
}
