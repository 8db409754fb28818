//! One tool call as a turn makes it — `pre-tool-call` through the interceptor chain, then the
//! tool — three ways, side by side:
//!
//! - **wasm**: the `tool-guard` sample (a 0.2.0 interceptor) in the chain, then the `grep-tool`
//!   sample (a tool plugin with `fs = "read"`), through [`run_pre_tool`] and
//!   [`ToolRegistry::output`], the two steps a turn takes per call (`worker/turn/tool_calls.rs`);
//! - **native**: the same guard and the same search written as Rust trait objects (same globs,
//!   same regex, same deny globs and caps): the floor;
//! - **process hook**: the guard run the way other agents run pre-tool hooks (Claude Code's
//!   `PreToolUse`, Codex's hooks): one process per call, the call as JSON on stdin, the decision
//!   as JSON on stdout; then the wasm grep tool. The hook is this bench binary started again
//!   with `WARDEN_BENCH_TOOL_HOOK` set: it reads its rules, parses the JSON and applies the same
//!   patterns as the other two guards.
//!
//! - **command hook**: the same Python guard as a `[[hooks]]` entry, run by warden in its
//!   sandbox (`command_hook::CommandHook`, the launcher being this package's `warden`
//!   binary): the cost the sandbox adds to a hook, beside the bare process hook.
//!
//! Then the built-in `edit_file` through the same path (native guard, registry) beside a direct
//! `std::fs::write` of the same bytes.
//!
//! `cargo bench --profile dev -p warden --bench tools -- --warm-up-time 1 --measurement-time 3`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs
)]

use std::hint::black_box;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group};
use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};
use serde_json::{Value, json};
use warden::config::{Approve, FailurePolicy, FsGrant, ToolGrants};
use warden::domain::{
    FileChunk, Interceptor, Item, Listing, PluginFailure, PromptDecision, RequestInfo, Resolve,
    ResolveError, ResolveRequest, Resolved, SubmittedPrompt, Tool, ToolCall, ToolContext,
    ToolDecision, ToolOutput, ToolSpec, TurnEndDecision, TurnInfo,
};
use warden::plugin::{
    EngineOptions, InterceptorPlugin, Limits, PluginEngine, ToolLoad, ToolPlugin,
};
use warden::worker::{ChainEntry, ToolOwner, ToolRegistry, run_pre_tool};

const TOOL_GUARD: &str = env!("WARDEN_TOOL_GUARD_WASM");
const GREP_TOOL: &str = env!("WARDEN_GREP_TOOL_WASM");

/// Set in the environment of the hook process: the binary answers one hook call and exits.
const HOOK_ENV: &str = "WARDEN_BENCH_TOOL_HOOK";

/// The `grep-tool` sample's tool (named apart from the built-in `grep`).
const GREP_NAME: &str = "search_text";

/// The guard's rules, the same for all three guards.
const DENY: &str = "write_file:*.lock,search_text:secret*,read_file:**/.ssh/**,rm";
const REWRITE: &str = "old/=>new/";

/// The benchmarked call: allowed by every rule, three matches in the workspace.
fn the_call() -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: GREP_NAME.into(),
        arguments: json!({"pattern": "fn handle_[a-z]+", "path": "src"}),
    }
}

// ---------------------------------------------------------------------------------------------
// The guard's logic (the `tool-guard` sample, natively).

struct Rule {
    text: String,
    tool: String,
    glob: Option<GlobMatcher>,
}

struct Guard {
    deny: Vec<Rule>,
    rewrite: Vec<(String, String)>,
    reason: String,
}

fn list(text: &str) -> impl Iterator<Item = &str> {
    text.split([',', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

impl Guard {
    fn new(deny: &str, rewrite: &str) -> Self {
        let deny = list(deny)
            .map(|text| {
                let (tool, glob) = match text.split_once(':') {
                    Some((tool, glob)) => (tool.trim(), Some(glob.trim())),
                    None => (text, None),
                };
                Rule {
                    text: text.to_owned(),
                    tool: tool.to_owned(),
                    glob: glob.map(|g| {
                        GlobBuilder::new(g)
                            .literal_separator(true)
                            .case_insensitive(true)
                            .build()
                            .unwrap()
                            .compile_matcher()
                    }),
                }
            })
            .collect();
        let rewrite = list(rewrite)
            .map(|text| {
                let (from, to) = text.split_once("=>").unwrap();
                (from.trim().to_owned(), to.trim().to_owned())
            })
            .collect();
        Self {
            deny,
            rewrite,
            reason: "tool-guard".into(),
        }
    }

    fn judge(&self, tool: &str, arguments: &Value) -> ToolDecision {
        let path = arguments.get("path").and_then(Value::as_str);
        for rule in &self.deny {
            if rule.tool != "*" && rule.tool != tool {
                continue;
            }
            let hit = match (&rule.glob, path) {
                (None, _) => true,
                (Some(glob), Some(path)) => glob.is_match(path),
                (Some(_), None) => false,
            };
            if hit {
                return ToolDecision::Deny(format!(
                    "{}: `{tool}` {}is denied by rule `{}`",
                    self.reason,
                    path.map(|p| format!("on `{p}` ")).unwrap_or_default(),
                    rule.text
                ));
            }
        }
        if let Some(path) = path {
            for (from, to) in &self.rewrite {
                if let Some(rest) = path.strip_prefix(from.as_str()) {
                    let mut args = arguments.clone();
                    args["path"] = Value::String(format!("{to}{rest}"));
                    return ToolDecision::Rewrite(args);
                }
            }
        }
        ToolDecision::Allow
    }
}

/// An interceptor that only has a `pre-tool-call` opinion.
trait PreTool {
    fn name(&self) -> &str;
    fn decide(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure>;
}

struct Chained<T>(T);

impl<T: PreTool> Interceptor for Chained<T> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn on_prompt_submit(&mut self, _: &SubmittedPrompt) -> Result<PromptDecision, PluginFailure> {
        Ok(PromptDecision::Continue)
    }
    fn pre_llm_request(&mut self, _: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        Ok(Vec::new())
    }
    fn on_turn_end(&mut self, _: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        Ok(TurnEndDecision::Finish)
    }
    fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        self.0.decide(call)
    }
}

/// The guard as a native trait object.
struct NativeGuard(Guard);

impl PreTool for NativeGuard {
    fn name(&self) -> &str {
        "native-guard"
    }
    fn decide(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        Ok(self.0.judge(&call.name, &call.arguments))
    }
}

// ---------------------------------------------------------------------------------------------
// The guard as a process hook.

/// Spawns the hook once per call: the call as JSON on stdin, the decision as JSON on stdout
/// (the shape of Claude Code's `PreToolUse` hooks).
struct ProcessHook {
    program: PathBuf,
    args: Vec<String>,
    cwd: PathBuf,
}

impl PreTool for ProcessHook {
    fn name(&self) -> &str {
        "process-hook"
    }
    fn decide(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        let fail = |message: String| PluginFailure::new("process-hook", "pre-tool-call", message);
        let input = json!({
            "session_id": "bench",
            "cwd": self.cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": call.name,
            "tool_input": call.arguments,
            "tool_use_id": call.id,
        });
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .env(HOOK_ENV, "1")
            .env("WARDEN_BENCH_HOOK_DENY", DENY)
            .env("WARDEN_BENCH_HOOK_REWRITE", REWRITE)
            .current_dir(&self.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| fail(format!("spawn: {e}")))?;
        let mut stdin = child.stdin.take().ok_or_else(|| fail("no stdin".into()))?;
        stdin
            .write_all(input.to_string().as_bytes())
            .map_err(|e| fail(format!("stdin: {e}")))?;
        drop(stdin);
        let out = child
            .wait_with_output()
            .map_err(|e| fail(format!("wait: {e}")))?;
        if !out.status.success() {
            return Err(fail(format!("hook exited with {}", out.status)));
        }
        let answer: Value =
            serde_json::from_slice(&out.stdout).map_err(|e| fail(format!("stdout: {e}")))?;
        let specific = &answer["hookSpecificOutput"];
        Ok(match specific["permissionDecision"].as_str() {
            Some("deny") => ToolDecision::Deny(
                specific["permissionDecisionReason"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            ),
            _ => match specific.get("updatedInput") {
                Some(args) => ToolDecision::Rewrite(args.clone()),
                None => ToolDecision::Allow,
            },
        })
    }
}

/// The same hook in Python 3, as hooks are often written: the globs translated to regular
/// expressions with globset's rules for these patterns (`*` stops at `/`, `**` crosses it,
/// case ignored).
const PYTHON_HOOK: &str = r#"
import json, os, re, sys

def glob_re(glob):
    out, i = "", 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out += "(?:.*/)?"; i += 3
        elif glob.startswith("**", i):
            out += ".*"; i += 2
        elif glob[i] == "*":
            out += "[^/]*"; i += 1
        elif glob[i] == "?":
            out += "[^/]"; i += 1
        else:
            out += re.escape(glob[i]); i += 1
    return re.compile(out + r"\Z", re.IGNORECASE | re.DOTALL)

def items(text):
    return [s.strip() for s in re.split(r"[,\n]", text) if s.strip()]

call = json.load(sys.stdin)
tool, args = call["tool_name"], call["tool_input"]
path = args.get("path") if isinstance(args.get("path"), str) else None
out = {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
for text in items(os.environ.get("WARDEN_BENCH_HOOK_DENY", "")):
    name, _, glob = text.partition(":")
    name = name.strip()
    if name != "*" and name != tool:
        continue
    if not glob.strip() or (path is not None and glob_re(glob.strip()).match(path)):
        where = "on `%s` " % path if path is not None else ""
        out["permissionDecision"] = "deny"
        out["permissionDecisionReason"] = "tool-guard: `%s` %sis denied by rule `%s`" % (tool, where, text)
        break
else:
    for text in items(os.environ.get("WARDEN_BENCH_HOOK_REWRITE", "")):
        src, _, dst = text.partition("=>")
        if path is not None and path.startswith(src.strip()):
            args = dict(args); args["path"] = dst.strip() + path[len(src.strip()):]
            out["updatedInput"] = args
            break
json.dump({"hookSpecificOutput": out}, sys.stdout)
"#;

/// The Python 3 interpreter itself (`sys.executable`: not a version manager's shim, which
/// would add its own start-up), when `python3` is on the `PATH`.
fn python3() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout).ok()?;
    let path = PathBuf::from(path.trim());
    (out.status.success() && path.is_file()).then_some(path)
}

/// The hook process: read the call, judge it, write the decision.
fn hook_main() -> i32 {
    if std::env::var_os(HOOK_ENV).is_some_and(|v| v == "exit") {
        return 0;
    }
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        return 1;
    }
    let Ok(call) = serde_json::from_str::<Value>(&input) else {
        return 1;
    };
    let guard = Guard::new(
        &std::env::var("WARDEN_BENCH_HOOK_DENY").unwrap_or_default(),
        &std::env::var("WARDEN_BENCH_HOOK_REWRITE").unwrap_or_default(),
    );
    let tool = call["tool_name"].as_str().unwrap_or_default();
    let mut specific = json!({"hookEventName": "PreToolUse"});
    match guard.judge(tool, &call["tool_input"]) {
        ToolDecision::Allow => specific["permissionDecision"] = json!("allow"),
        ToolDecision::Deny(reason) => {
            specific["permissionDecision"] = json!("deny");
            specific["permissionDecisionReason"] = json!(reason);
        }
        ToolDecision::Rewrite(args) => {
            specific["permissionDecision"] = json!("allow");
            specific["updatedInput"] = args;
        }
        ToolDecision::Ask(reason) => {
            specific["permissionDecision"] = json!("ask");
            specific["permissionDecisionReason"] = json!(reason);
        }
    }
    let answer = json!({ "hookSpecificOutput": specific });
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(answer.to_string().as_bytes()).is_err() {
        return 1;
    }
    0
}

// ---------------------------------------------------------------------------------------------
// The grep tool's logic (the `grep-tool` sample, natively).

const MAX_FILE_BYTES: u64 = 1 << 20;
const MAX_MATCHES: u64 = 1000;
const MAX_LINE: usize = 300;

struct NativeGrep {
    root: PathBuf,
    deny: GlobSet,
    max_bytes: usize,
}

struct Search<'a> {
    grep: &'a NativeGrep,
    regex: Regex,
    max_matches: usize,
    bytes: usize,
    lines: Vec<String>,
    more: bool,
    files: usize,
}

impl NativeGrep {
    fn new(root: &Path) -> Self {
        let mut builder = GlobSetBuilder::new();
        for glob in warden_defaults::DEFAULT_DENY {
            let pattern = if glob.contains('/') {
                glob.trim_start_matches('/').to_owned()
            } else {
                format!("**/{glob}")
            };
            builder.add(
                GlobBuilder::new(&pattern)
                    .literal_separator(true)
                    .case_insensitive(true)
                    .build()
                    .unwrap(),
            );
        }
        Self {
            root: root.to_owned(),
            deny: builder.build().unwrap(),
            max_bytes: warden_defaults::DEFAULT_MAX_BYTES as usize,
        }
    }

    fn denied(&self, relative: &str) -> bool {
        relative.split('/').any(|c| c.eq_ignore_ascii_case(".git")) || self.deny.is_match(relative)
    }

    /// The sample's `Workspace::resolve`: no absolute paths, no `..`, no denied path.
    fn resolve(&self, path: &str) -> Result<(PathBuf, String), String> {
        let mut parts = Vec::new();
        for component in Path::new(path).components() {
            match component {
                std::path::Component::Normal(name) => {
                    parts.push(name.to_str().ok_or(format!("{path}: not valid UTF-8"))?)
                }
                std::path::Component::CurDir => {}
                _ => return Err(format!("{path}: refused")),
            }
        }
        let relative = parts.join("/");
        if self.denied(&relative) {
            return Err(format!("{path}: denied by the workspace's deny globs"));
        }
        Ok((self.root.join(&relative), relative))
    }
}

impl Search<'_> {
    fn full(&self) -> bool {
        self.lines.len() >= self.max_matches || self.bytes >= self.grep.max_bytes
    }

    fn walk(&mut self, dir: &Path, relative: &str) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            if self.more {
                return;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let rel = if relative.is_empty() {
                name
            } else {
                format!("{relative}/{name}")
            };
            if self.grep.denied(&rel) {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                self.walk(&entry.path(), &rel);
            } else if kind.is_file() {
                self.file(&entry.path(), &rel);
            }
        }
    }

    fn file(&mut self, path: &Path, relative: &str) {
        match std::fs::metadata(path) {
            Ok(meta) if meta.len() <= MAX_FILE_BYTES => {}
            _ => return,
        }
        let Ok(bytes) = std::fs::read(path) else {
            return;
        };
        if bytes.iter().take(8192).any(|&b| b == 0) {
            return;
        }
        self.files += 1;
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if !self.regex.is_match(line) {
                continue;
            }
            if self.full() {
                self.more = true;
                return;
            }
            let mut shown: String = line.chars().take(MAX_LINE).collect();
            if shown.len() < line.len() {
                shown.push('…');
            }
            let entry = format!("{relative}:{}: {shown}", n + 1);
            self.bytes += entry.len() + 1;
            self.lines.push(entry);
        }
    }
}

impl NativeGrep {
    fn call(&self, args: &Value) -> Result<String, String> {
        let flag = |key: &str| args.get(key).and_then(Value::as_bool).unwrap_or(false);
        let pattern = args
            .get("pattern")
            .and_then(Value::as_str)
            .ok_or("missing string argument `pattern`")?;
        let path = args.get("path").and_then(Value::as_str).unwrap_or(".");
        let max_matches = args
            .get("max_matches")
            .and_then(Value::as_u64)
            .unwrap_or(100)
            .clamp(1, MAX_MATCHES);
        let source = if flag("literal") {
            regex::escape(pattern)
        } else {
            pattern.to_owned()
        };
        let regex = RegexBuilder::new(&source)
            .case_insensitive(flag("ignore_case"))
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("invalid pattern: {e}"))?;
        let (full, relative) = self.resolve(path)?;
        let mut search = Search {
            grep: self,
            regex,
            max_matches: max_matches as usize,
            bytes: 0,
            lines: Vec::new(),
            more: false,
            files: 0,
        };
        let meta = std::fs::metadata(&full).map_err(|e| format!("{path}: {e}"))?;
        if meta.is_dir() {
            search.walk(&full, &relative);
        } else {
            search.file(&full, &relative);
        }
        let mut text = search.lines.join("\n");
        if search.lines.is_empty() {
            text = format!("no matches in {} files", search.files);
        } else if search.more {
            text.push_str("\n[more matches not shown]");
        }
        Ok(text)
    }
}

impl Tool for NativeGrep {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: GREP_NAME.into(),
            description: "Search the workspace's text files.".into(),
            input_schema: json!({"type": "object"}),
        }
    }
    fn run(&mut self, arguments: &Value, _: &mut ToolContext<'_>) -> ToolOutput {
        match self.call(arguments) {
            Ok(text) => ToolOutput::ok(text),
            Err(message) => ToolOutput::error(message),
        }
    }
}

/// Plugin and native tools alike never touch the resolver; the registry wants one.
struct NoResolver;

impl Resolve for NoResolver {
    fn resolve(&mut self, _: &ResolveRequest) -> Result<Resolved, ResolveError> {
        unreachable!("grep does not use the resolver")
    }
    fn read_file(&mut self, _: &str, _: u32, _: u32, _: u64) -> Result<FileChunk, ResolveError> {
        unreachable!("grep does not use the resolver")
    }
    fn list_files(&mut self, _: &str, _: u32) -> Result<Listing, ResolveError> {
        unreachable!("grep does not use the resolver")
    }
}

// ---------------------------------------------------------------------------------------------
// Set-up and the benchmarks.

/// 12 source files of about 2.3 KB under `src/` (3 lines match the query), a `.env` the deny
/// globs hide, a README.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    for i in 0..12 {
        let mut text = String::new();
        for line in 0..40 {
            text.push_str(&format!(
                "    let value_{line} = compute({i}, {line}); // step {line} of module {i}\n"
            ));
        }
        if i % 4 == 1 {
            text.push_str(&format!(
                "fn handle_request_{i}(req: Request) -> Response {{\n"
            ));
        }
        std::fs::write(src.join(format!("module_{i:02}.rs")), text).unwrap();
    }
    std::fs::write(dir.path().join(".env"), "fn handle_secret = 1\n").unwrap();
    std::fs::write(dir.path().join("README.md"), "# bench workspace\n").unwrap();
    dir
}

fn guard_chain(plugin: Box<dyn Interceptor>) -> Vec<ChainEntry> {
    vec![ChainEntry {
        plugin,
        failure: FailurePolicy::Closed,
        shadow: None,
        matcher: None,
    }]
}

fn wasm_guard(engine: &PluginEngine) -> Box<dyn Interceptor> {
    Box::new(
        InterceptorPlugin::load(
            engine,
            "tool-guard",
            Path::new(TOOL_GUARD),
            None,
            Limits::default(),
            vec![
                ("deny".into(), DENY.into()),
                ("rewrite".into(), REWRITE.into()),
            ],
        )
        .unwrap(),
    )
}

fn wasm_grep(engine: &PluginEngine, root: &Path) -> (ToolPlugin, ToolRegistry) {
    let grants = ToolGrants {
        fs: FsGrant::Read,
        ..ToolGrants::default()
    };
    let plugin = ToolPlugin::load(
        engine,
        "grep-tool",
        ToolLoad {
            path: Path::new(GREP_TOOL),
            pin: None,
            limits: Limits::default(),
            grants: &grants,
            roots: &[root.to_owned()],
            deny: &warden::domain::defaults::DEFAULT_DENY
                .iter()
                .map(|g| (*g).to_owned())
                .collect::<Vec<_>>(),
        },
        Vec::new(),
        &|_| None,
    )
    .unwrap();
    let mut registry = ToolRegistry::new();
    for tool in plugin.tools() {
        registry
            .register_plugin_tool(
                tool,
                ToolOwner {
                    plugin: "grep-tool".into(),
                    approve: Approve::Never,
                    grants: grants.clone(),
                    failure: FailurePolicy::Closed,
                    mcp: None,
                },
            )
            .unwrap();
    }
    (plugin, registry)
}

/// The chain's verdict on `call`, as a turn asks it: the call with the arguments the tool
/// receives, or the reason it was denied.
fn verdict(chain: &mut [ChainEntry], call: &ToolCall) -> Result<ToolCall, String> {
    let outcome = run_pre_tool(chain, call).into_outcome();
    if let Some((_, reason)) = outcome.denied() {
        return Err(reason.to_owned());
    }
    Ok(outcome.into_call_to_run())
}

/// What a turn does per call: the chain's verdict, then the tool with the arguments it gave.
fn one_call(chain: &mut [ChainEntry], registry: &mut ToolRegistry, call: &ToolCall) -> ToolOutput {
    let call = verdict(chain, call).unwrap();
    registry.output(&call, &mut NoResolver)
}

fn tool_calls(c: &mut Criterion) {
    let dir = workspace();
    let root = dir.path().canonicalize().unwrap();
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let call = the_call();

    let mut native_chain = guard_chain(Box::new(Chained(NativeGuard(Guard::new(DENY, REWRITE)))));
    let mut native_tools = ToolRegistry::with(vec![Box::new(NativeGrep::new(&root))]).unwrap();
    let mut wasm_chain = guard_chain(wasm_guard(&engine));
    let (grep_plugin, mut wasm_tools) = wasm_grep(&engine, &root);
    let exe = std::env::current_exe().unwrap();
    let mut hook_chain = guard_chain(Box::new(Chained(ProcessHook {
        program: exe.clone(),
        args: Vec::new(),
        cwd: root.clone(),
    })));
    let mut python_chain = python3().map(|python| {
        guard_chain(Box::new(Chained(ProcessHook {
            program: python,
            args: vec!["-c".into(), PYTHON_HOOK.into()],
            cwd: root.clone(),
        })))
    });

    // The three give the same answer: three matches, in the same order (a tool plugin's
    // output also carries its own figures, which a native tool has none of).
    let answer = |output: ToolOutput| (output.content, output.is_error);
    let expected = answer(one_call(&mut native_chain, &mut native_tools, &call));
    assert!(!expected.1, "{}", expected.0);
    assert_eq!(expected.0.lines().count(), 3, "{}", expected.0);
    assert_eq!(
        answer(one_call(&mut wasm_chain, &mut wasm_tools, &call)),
        expected
    );
    assert_eq!(
        answer(one_call(&mut hook_chain, &mut wasm_tools, &call)),
        expected
    );
    // And the guards deny and rewrite alike.
    for (name, arguments) in [
        (GREP_NAME, json!({"pattern": "x", "path": "Secrets.txt"})),
        ("read_file", json!({"path": "old/a.rs", "limit": 3})),
        ("rm", json!({})),
    ] {
        let probe = ToolCall {
            id: "probe".into(),
            name: name.into(),
            arguments,
        };
        let native = verdict(&mut native_chain, &probe);
        assert_eq!(verdict(&mut wasm_chain, &probe), native);
        assert_eq!(verdict(&mut hook_chain, &probe), native);
        if let Some(chain) = python_chain.as_mut() {
            assert_eq!(verdict(chain, &probe), native);
        }
    }
    if let Some(chain) = python_chain.as_mut() {
        assert_eq!(answer(one_call(chain, &mut wasm_tools, &call)), expected);
    }
    // The same Python guard as a `[[hooks]]` entry: run by warden in its sandbox (the launcher
    // is this package's `warden` binary), the call as Claude Code's JSON.
    let mut sandboxed_chain = python3()
        .filter(|_| {
            warden::sandbox::probe(std::path::Path::new(env!("CARGO_BIN_EXE_warden")))
                .is_ok_and(|pieces| warden::sandbox::missing(&pieces).is_none())
        })
        .map(|python| {
            std::fs::write(root.join("guard.py"), PYTHON_HOOK).unwrap();
            let entry = warden::config::CommandHookEntry {
                name: "guard".into(),
                event: warden::domain::hook_event::HookEvent::PreToolUse,
                matcher: None,
                command: format!("{} guard.py", python.display()),
                timeout_s: 30,
                fs: FsGrant::Read,
                allowed_hosts: Vec::new(),
                env: vec![
                    "WARDEN_BENCH_HOOK_DENY".into(),
                    "WARDEN_BENCH_HOOK_REWRITE".into(),
                ],
                on_error: warden::config::HookOnError::Deny,
                mode: warden::config::PluginMode::Enforce,
                origin: "user".into(),
                declared_in: None,
            };
            let mut vars: Vec<(String, String)> = std::env::vars().collect();
            vars.push(("WARDEN_BENCH_HOOK_DENY".into(), DENY.into()));
            vars.push(("WARDEN_BENCH_HOOK_REWRITE".into(), REWRITE.into()));
            let launch = warden::sandbox::confined::LaunchContext {
                roots: vec![root.clone()],
                launcher: PathBuf::from(env!("CARGO_BIN_EXE_warden")),
                vars,
                hide: Vec::new(),
                deny: Vec::new(),
            };
            let mut hook = warden::command_hook::CommandHook::new(entry, launch).unwrap();
            hook.set_context(&warden::domain::TurnContext {
                session: "bench".into(),
                cwd: root.display().to_string(),
                ..warden::domain::TurnContext::default()
            });
            guard_chain(Box::new(hook))
        });
    if let Some(chain) = sandboxed_chain.as_mut() {
        // A plugin tool's name and arguments reach a hook as they are: the same verdicts.
        let secret = ToolCall {
            id: "probe".into(),
            name: GREP_NAME.into(),
            arguments: json!({"pattern": "x", "path": "Secrets.txt"}),
        };
        assert_eq!(verdict(chain, &secret), verdict(&mut native_chain, &secret));
        assert_eq!(answer(one_call(chain, &mut wasm_tools, &call)), expected);
    }

    let mut group = c.benchmark_group("tool call: 1 guard (allow) + grep, 12 files, 3 matches");
    group.bench_function("native guard + native grep", |b| {
        b.iter(|| {
            black_box(one_call(
                &mut native_chain,
                &mut native_tools,
                black_box(&call),
            ))
        })
    });
    group.bench_function("wasm guard + wasm grep (warm instances)", |b| {
        b.iter(|| black_box(one_call(&mut wasm_chain, &mut wasm_tools, black_box(&call))))
    });
    group.bench_function("wasm guard + wasm grep (fresh grep instance + init)", |b| {
        b.iter(|| {
            grep_plugin.reset();
            black_box(one_call(&mut wasm_chain, &mut wasm_tools, black_box(&call)))
        })
    });
    // A process per call: fewer samples, so that the run stays within its measurement time.
    group.sample_size(20);
    group.bench_function("process hook guard + wasm grep", |b| {
        b.iter(|| black_box(one_call(&mut hook_chain, &mut wasm_tools, black_box(&call))))
    });
    group.finish();

    // The parts on their own: each guard's verdict, each grep.
    let mut group = c.benchmark_group("tool call parts");
    group.bench_function("guard: native", |b| {
        b.iter(|| black_box(verdict(&mut native_chain, black_box(&call)).unwrap()))
    });
    group.bench_function("guard: wasm", |b| {
        b.iter(|| black_box(verdict(&mut wasm_chain, black_box(&call)).unwrap()))
    });
    group.bench_function("grep: native", |b| {
        b.iter(|| black_box(native_tools.output(black_box(&call), &mut NoResolver)))
    });
    group.bench_function("grep: wasm (warm instance)", |b| {
        b.iter(|| black_box(wasm_tools.output(black_box(&call), &mut NoResolver)))
    });
    group.sample_size(20);
    group.bench_function("guard: process hook", |b| {
        b.iter(|| black_box(verdict(&mut hook_chain, black_box(&call)).unwrap()))
    });
    if let Some(chain) = python_chain.as_mut() {
        group.bench_function("guard: process hook, Python 3", |b| {
            b.iter(|| black_box(verdict(chain, black_box(&call)).unwrap()))
        });
    }
    if let Some(chain) = sandboxed_chain.as_mut() {
        group.bench_function("guard: command hook, Python 3, sandboxed by warden", |b| {
            b.iter(|| black_box(verdict(chain, black_box(&call)).unwrap()))
        });
    }
    // What starting the Rust hook costs before it reads anything (this bench binary is large).
    group.bench_function(
        "process floor: spawn + wait of the hook binary, exiting at once",
        |b| b.iter(|| black_box(Command::new(&exe).env(HOOK_ENV, "exit").status().unwrap())),
    );
    // The floor of any process hook: start a process that does nothing and wait for it.
    if Path::new("/bin/true").exists() {
        group.bench_function("process floor: spawn + wait /bin/true", |b| {
            b.iter(|| black_box(Command::new("/bin/true").status().unwrap()))
        });
    }
    group.finish();
}

/// The built-in `edit_file` as a turn runs it (the native guard's verdict, then the tool from
/// the registry: located, parent opened and checked on its real path, read, replaced, written
/// through a temporary file and a rename), beside a plain `std::fs::write` of the same bytes.
/// Each iteration flips one word of a 2.3 KB file, so the file is the same size throughout.
fn edit_file(c: &mut Criterion) {
    let dir = workspace();
    let root = dir.path().canonicalize().unwrap();
    let config = warden::config::FileRefConfig::default();
    let mut registry =
        ToolRegistry::with(warden::tools::workspace_tools(&config, &root).unwrap()).unwrap();
    let mut chain = guard_chain(Box::new(Chained(NativeGuard(Guard::new(DENY, REWRITE)))));
    let path = root.join("src/module_00.rs");
    let original = std::fs::read_to_string(&path).unwrap();
    let flipped = original.replacen("// step 0 of module 0\n", "// step 0 of module Z\n", 1);
    assert_ne!(original, flipped);
    let edit = |from: &str, to: &str| ToolCall {
        id: "e".into(),
        name: warden::domain::builtin::EDIT_FILE.into(),
        arguments: json!({"path": "src/module_00.rs", "old_string": from, "new_string": to}),
    };
    let forth = edit("// step 0 of module 0\n", "// step 0 of module Z\n");
    let back = edit("// step 0 of module Z\n", "// step 0 of module 0\n");
    let out = one_call(&mut chain, &mut registry, &forth);
    assert_eq!(
        out.content, "Replaced 1 occurrence in src/module_00.rs",
        "{}",
        out.content
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), flipped);
    let out = one_call(&mut chain, &mut registry, &back);
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);

    let mut group = c.benchmark_group("edit a 2.3 KB file");
    let mut flip = false;
    group.bench_function("edit_file: guard + registry + atomic write", |b| {
        b.iter(|| {
            flip = !flip;
            let call = if flip { &forth } else { &back };
            black_box(one_call(&mut chain, &mut registry, black_box(call)))
        })
    });
    group.bench_function("std::fs::write of the same bytes", |b| {
        b.iter(|| {
            flip = !flip;
            let bytes = if flip { &flipped } else { &original };
            std::fs::write(black_box(&path), black_box(bytes.as_bytes())).unwrap()
        })
    });
    // `edit_file` syncs its temporary file before the rename; the same durability, directly.
    group.bench_function("std::fs::write of the same bytes + sync_all", |b| {
        b.iter(|| {
            flip = !flip;
            let bytes = if flip { &flipped } else { &original };
            let mut file = std::fs::File::create(black_box(&path)).unwrap();
            file.write_all(black_box(bytes.as_bytes())).unwrap();
            file.sync_all().unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, tool_calls, edit_file);

fn main() {
    if std::env::var_os(HOOK_ENV).is_some() {
        std::process::exit(hook_main());
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
