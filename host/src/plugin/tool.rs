//! Tool plugins (the `tool` world of WIT 0.2.0 and 0.3.0): a component that serves tools to the
//! model, holding exactly the capabilities its entry grants.
//!
//! At load the component is instantiated, `init` is called with its config (plus `roots`, the
//! workspace roots, newline-separated) and `describe` once; the specs are checked (valid and
//! unique names, a JSON object schema, bounded text). Each described tool becomes a
//! [`domain::Tool`](crate::domain::Tool) sharing the plugin's one instance. Every call runs
//! under the entry's deadline and memory cap; an output over `max_output_bytes` is a plugin
//! failure. Grants:
//! - `fs`: the workspace roots preopened (at their absolute paths) read-only or read-write,
//!   behind the filesystem guard (see [`super::fs_guard`]): on real paths, the deny globs
//!   for every access and the protected directories (`.warden`, `.git`) for every write; with
//!   `none` nothing is preopened, so no file can be opened at all;
//! - `env`: only the listed variables, with the host's values (absent ones are left out);
//! - `allowed_hosts`: `outgoing.fetch` reaches those hosts only (see [`super::outgoing`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use wasmtime_wasi::FsPerms;

use super::engine::PluginEngine;
use super::error::PluginError;
use super::instance::in_wasi_runtime;
use super::limits::{Limits, MAX_PLUGIN_STRING};
use super::loader::load_file;
use super::outgoing::HttpFigures;
use super::preopen::{Preopens, with_roots};
use super::wit::{DescribedTool, VersionedTool, each_tool_version};
use super::world::{ComponentInfo, World};
use crate::config::{FsGrant, ToolGrants};
use crate::domain::escape::escape_capped;
use crate::domain::{Tool, ToolCallAudit, ToolContext, ToolOutput, ToolSpec};

/// Most tools one plugin may describe.
pub const MAX_TOOLS_PER_PLUGIN: usize = 64;
/// Longest tool description, in bytes.
pub const MAX_DESCRIPTION_BYTES: usize = 4096;
/// Longest JSON schema of a tool's arguments, in bytes.
pub const MAX_SCHEMA_BYTES: usize = 32 << 10;
/// Longest tool name.
pub const MAX_TOOL_NAME: usize = 64;

/// The shared instance of a tool plugin.
struct Shared {
    managed: VersionedTool,
    hosts: Vec<String>,
}

/// A loaded tool plugin.
pub struct ToolPlugin {
    name: String,
    info: ComponentInfo,
    specs: Vec<ToolSpec>,
    limits: Limits,
    /// Its entry grants no file system (`fs = "none"`).
    no_fs: bool,
    shared: Arc<Mutex<Shared>>,
}

/// What a tool plugin's entry gives it.
#[derive(Debug, Clone, Copy)]
pub struct ToolLoad<'a> {
    /// Component file.
    pub path: &'a Path,
    /// Required sha256.
    pub pin: Option<&'a str>,
    /// Deadline, memory and output caps.
    pub limits: Limits,
    /// Its grants.
    pub grants: &'a ToolGrants,
    /// Workspace roots (absolute, canonical); preopened per the `fs` grant.
    pub roots: &'a [PathBuf],
    /// The deny globs (`fileref.deny`) the host holds an `fs` grant to, on real paths.
    pub deny: &'a [String],
}

/// `true` for a name the model providers accept: 1–64 of `A-Z a-z 0-9 _ -`.
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOOL_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// An error when a workspace root would preopen warden's own state or configuration (a state
/// root kept inside the workspace): the `fs` grant is refused rather than served with them.
fn refuse_roots_holding_own_paths(
    name: &str,
    roots: &[std::path::PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), PluginError> {
    let own = crate::config::own_paths(env);
    for root in roots {
        let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
        if let Some(inside) = own.iter().find(|p| p.starts_with(&real) && p.exists()) {
            return Err(PluginError::Load {
                plugin: name.to_owned(),
                stage: "grants",
                message: format!(
                    "the `fs` grant is refused: workspace root {} holds warden's own {} (state, caches or configuration), which no plugin may see; keep it outside the workspace (`WARDEN_HOME`, `XDG_CONFIG_HOME`)",
                    root.display(),
                    inside.display()
                ),
            });
        }
    }
    Ok(())
}

impl ToolPlugin {
    /// Load the tool plugin `name`, give it its grants, call `init` with `config` and
    /// `describe` once. `env` reads the host's environment (only the granted names are
    /// asked).
    pub fn load(
        engine: &PluginEngine,
        name: &str,
        load: ToolLoad<'_>,
        config: Vec<(String, String)>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, PluginError> {
        let (info, component) = load_file(engine, name, load.path, load.pin, World::Tool)?;
        let perms = match load.grants.fs {
            FsGrant::None => None,
            FsGrant::Read => Some(FsPerms::ReadOnly),
            FsGrant::ReadWrite => Some(FsPerms::ReadWrite),
        };
        if perms.is_some() {
            refuse_roots_holding_own_paths(name, load.roots, env)?;
        }
        let preopens = Preopens::new(name, load.roots, perms)?.guarded(load.deny)?;
        let vars: Vec<(String, String)> = load
            .grants
            .env
            .iter()
            .filter_map(|key| env(key).map(|value| (key.clone(), value)))
            .collect();
        let mut managed = VersionedTool::load(
            info.version,
            name,
            engine,
            &component,
            load.limits,
            with_roots(config, load.roots),
            preopens.factory(vars),
        )?;
        let described = each_tool_version!(&mut managed, m, conv => conv::describe(m)?);
        let specs = check_specs(name, described)?;
        Ok(Self {
            name: name.to_owned(),
            info,
            specs,
            limits: load.limits,
            no_fs: matches!(load.grants.fs, FsGrant::None),
            shared: Arc::new(Mutex::new(Shared {
                managed,
                hosts: load.grants.allowed_hosts.clone(),
            })),
        })
    }

    /// Configured name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the component is.
    pub fn info(&self) -> &ComponentInfo {
        &self.info
    }

    /// The tools it described, in its order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// One [`Tool`] per described tool, all sharing this plugin's instance.
    pub fn tools(&self) -> Vec<Box<dyn Tool + Send>> {
        self.specs
            .iter()
            .map(|spec| {
                Box::new(PluginTool {
                    plugin: self.name.clone(),
                    limits: self.limits,
                    no_fs: self.no_fs,
                    spec: spec.clone(),
                    shared: Arc::clone(&self.shared),
                }) as Box<dyn Tool + Send>
            })
            .collect()
    }

    /// Starts a turn: per-turn failure counts start again.
    pub fn new_turn(&self) {
        each_tool_version!(&mut lock(&self.shared).managed, m, _c => m.new_turn());
    }

    /// Drop the current instance; the next call runs on a fresh one (instantiated from the
    /// pre-linked component and initialised with the same config).
    pub fn reset(&self) {
        each_tool_version!(&mut lock(&self.shared).managed, m, _c => m.reset());
    }
}

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Checks what `describe` returned: a bounded number of tools with valid, unique names,
/// bounded descriptions and JSON object schemas.
fn check_specs(plugin: &str, described: Vec<DescribedTool>) -> Result<Vec<ToolSpec>, PluginError> {
    let bad = |message: String| PluginError::BadOutput {
        plugin: plugin.to_owned(),
        call: "describe",
        message,
    };
    if described.is_empty() {
        return Err(bad("describes no tools".to_owned()));
    }
    if described.len() > MAX_TOOLS_PER_PLUGIN {
        return Err(bad(format!(
            "{} tools, over the cap of {MAX_TOOLS_PER_PLUGIN}",
            described.len()
        )));
    }
    let mut specs: Vec<ToolSpec> = Vec::with_capacity(described.len());
    for spec in described {
        if !valid_tool_name(&spec.name) {
            return Err(bad(format!(
                "tool name {:?} is not 1-{MAX_TOOL_NAME} of A-Z a-z 0-9 _ -",
                escape_capped(&spec.name, MAX_TOOL_NAME * 2)
            )));
        }
        if specs.iter().any(|s| s.name == spec.name) {
            return Err(bad(format!("tool `{}` is described twice", spec.name)));
        }
        if spec.description.len() > MAX_DESCRIPTION_BYTES {
            return Err(bad(format!(
                "tool `{}`: description of {} bytes, over the cap of {MAX_DESCRIPTION_BYTES}",
                spec.name,
                spec.description.len()
            )));
        }
        if spec.parameters.len() > MAX_SCHEMA_BYTES {
            return Err(bad(format!(
                "tool `{}`: parameters schema of {} bytes, over the cap of {MAX_SCHEMA_BYTES}",
                spec.name,
                spec.parameters.len()
            )));
        }
        let spec = tool_spec(spec).map_err(&bad)?;
        if let Some(kind) = spec.input_schema.get("type")
            && kind != "object"
        {
            return Err(bad(format!(
                "tool `{}`: parameters schema has type {kind}, not \"object\"",
                spec.name
            )));
        }
        specs.push(spec);
    }
    Ok(specs)
}

/// A described tool as the model is offered it; `parameters` must be a JSON object schema.
fn tool_spec(s: DescribedTool) -> Result<ToolSpec, String> {
    let schema = match serde_json::from_str::<serde_json::Value>(&s.parameters) {
        Ok(value @ serde_json::Value::Object(_)) => value,
        Ok(_) => {
            return Err(format!(
                "tool `{}`: parameters are not a JSON object",
                s.name
            ));
        }
        Err(err) => {
            return Err(format!("tool `{}`: parameters are not JSON: {err}", s.name));
        }
    };
    Ok(ToolSpec {
        name: s.name,
        description: s.description,
        input_schema: schema,
    })
}

/// One tool of a tool plugin.
struct PluginTool {
    plugin: String,
    limits: Limits,
    no_fs: bool,
    spec: ToolSpec,
    shared: Arc<Mutex<Shared>>,
}

/// How WASI reports a file it cannot reach: with no preopen every path is "not found" (WASI's
/// `ENOENT` is 44) or "not capable" (76).
const NO_FILE_SIGNS: &[&str] = &[
    "os error 44",
    "os error 76",
    "No such file or directory",
    "Capabilities insufficient",
];

impl PluginTool {
    /// For a plugin granted no file system, the hint appended to an error that looks like a
    /// file it could not open: the grant is missing, not the file.
    fn fs_hint(&self, message: &str) -> Option<String> {
        (self.no_fs && NO_FILE_SIGNS.iter().any(|sign| message.contains(sign))).then(|| {
            format!(
                " (plugin `{}` has no file system access (`fs = \"none\"`): grant it with \
                 `fs = \"read\"` or `fs = \"read-write\"` in its [[plugins]] entry)",
                self.plugin
            )
        })
    }

    fn call(
        &self,
        shared: &mut Shared,
        arguments: &str,
    ) -> (Result<ToolOutput, PluginError>, HttpFigures) {
        let mut figures = HttpFigures::default();
        let deadline = Instant::now() + self.limits.timeout;
        let hosts = shared.hosts.clone();
        let name = self.spec.name.as_str();
        let answer = in_wasi_runtime(|| {
            each_tool_version!(&mut shared.managed, m, conv => {
                conv::call_tool(m, &hosts, deadline, name, arguments, &mut figures)
            })
        });
        let max = self.limits.max_output_bytes;
        let output = answer.and_then(|answer| {
            let text = match &answer {
                Ok(content) => content,
                Err(message) => message,
            };
            if text.len() > max {
                return Err(PluginError::BadOutput {
                    plugin: self.plugin.clone(),
                    call: "call",
                    message: format!(
                        "{} of {} bytes, over the cap of {max}",
                        if answer.is_ok() { "output" } else { "error" },
                        text.len()
                    ),
                });
            }
            Ok(match answer {
                // The one escaping function, as for every text from outside: no terminal
                // control, line separator or bidi override of a fetched page or a plugin's
                // answer reaches the model or the screen raw (newlines and tabs kept).
                Ok(content) => {
                    ToolOutput::ok(crate::domain::escape::terminal(&content).into_owned())
                }
                Err(message) => {
                    let mut text = escape_capped(&message, max.max(MAX_PLUGIN_STRING));
                    if let Some(hint) = self.fs_hint(&message) {
                        text.push_str(&hint);
                    }
                    ToolOutput::error(text)
                }
            })
        });
        (output, figures)
    }
}

impl Tool for PluginTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn run(&mut self, arguments: &serde_json::Value, _context: &mut ToolContext<'_>) -> ToolOutput {
        let arguments = arguments.to_string();
        let mut shared = lock(&self.shared);
        let _span = crate::trace::span("tool plugin call")
            .with("plugin", &self.plugin)
            .with("tool", &self.spec.name);
        let (answer, figures) = self.call(&mut shared, &arguments);
        let (output, failure) = match answer {
            Ok(output) => (output, None),
            Err(err) => {
                let mut message = err.to_string();
                if let Some(hint) = self.fs_hint(&message) {
                    message.push_str(&hint);
                }
                (ToolOutput::error(message.clone()), Some(message))
            }
        };
        output.with_figures(ToolCallAudit {
            http_requests: figures.requests,
            http_refused: figures.refused,
            http_bytes_out: figures.bytes_out,
            http_bytes_in: figures.bytes_in,
            failure,
            mcp: None,
        })
    }

    fn new_turn(&mut self) {
        each_tool_version!(&mut lock(&self.shared).managed, m, _c => m.new_turn());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_checked() {
        assert!(valid_tool_name("grep"));
        assert!(valid_tool_name("write_file"));
        assert!(valid_tool_name("a-b_9"));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("has space"));
        assert!(!valid_tool_name("dot.name"));
        assert!(!valid_tool_name(&"x".repeat(65)));
    }

    fn spec(name: &str, parameters: &str) -> DescribedTool {
        DescribedTool {
            name: name.into(),
            description: "d".into(),
            parameters: parameters.into(),
        }
    }

    #[test]
    fn described_specs_are_checked() {
        let ok = check_specs(
            "p",
            vec![spec("a", r#"{"type":"object"}"#), spec("b", "{}")],
        );
        assert_eq!(ok.map(|s| s.len()).ok(), Some(2));
        let cases = [
            (vec![spec("a", "{}"), spec("a", "{}")], "described twice"),
            (vec![spec("bad name", "{}")], "is not 1-64"),
            (vec![spec("a", "[1]")], "not a JSON object"),
            (vec![spec("a", "{")], "not JSON"),
            (vec![spec("a", r#"{"type":"string"}"#)], "not \"object\""),
            (Vec::new(), "describes no tools"),
        ];
        for (specs, expected) in cases {
            let err = check_specs("p", specs)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(expected), "{expected}: {err}");
        }
    }
}
