//! One MCP server: started (its process launched, or its URL reached; `initialize`, then its
//! tools and resources listed, all under the entry's start deadline) or failed, saying why.
//! Calls come from the synchronous worker: each runs on the set's runtime and is waited for
//! under its deadline, polling the turn's cancellation; a call past its deadline is abandoned
//! (the request is dropped, the server lives on).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::launch::{self, LaunchContext};
use crate::config::{McpEntry, McpTransport};
use crate::sandbox::HostProxy;
use crate::sandbox::placeholder::Placeholders;
use crate::sandbox::planted::move_aside;

/// Bytes of a server's standard error kept for failure messages.
const STDERR_TAIL: usize = 2048;
/// How often a waiting call checks the deadline and the turn's cancellation.
const POLL: Duration = Duration::from_millis(20);

/// What became of a server at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// Connected: its tools are offered.
    Started,
    /// Its tools are offered from the list kept at an earlier start; it starts when one of
    /// them (or a resource) is first used.
    Deferred,
    /// It failed to start (why): its tools are not offered.
    Failed(String),
}

/// A tool as the server lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ListedTool {
    /// Its name on the server.
    pub name: String,
    /// Its description.
    pub description: String,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
}

/// A resource as the server lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListedResource {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
}

struct Connected {
    service: RunningService<RoleClient, ()>,
    /// Held so that the process is killed when the connection goes (`kill_on_drop`).
    _child: Option<tokio::process::Child>,
    /// The filtering proxy of the server's `allowed_hosts`: it serves as long as the process
    /// runs and stops (its socket removed) when the connection goes.
    _proxy: Option<HostProxy>,
    /// The placeholders made for the process: removed once it is gone.
    _placeholders: Placeholders,
    /// For a read-write server, every `.git` under the roots when it started.
    repos_before: Option<Vec<PathBuf>>,
}

/// One configured server and its connection.
pub struct McpServer {
    entry: McpEntry,
    tools: Vec<ListedTool>,
    resources: Vec<ListedResource>,
    runtime: Arc<tokio::runtime::Runtime>,
    live: Mutex<Live>,
    /// How to start a server whose tools came from the kept list, until its first use.
    deferred: Mutex<Option<Deferred>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The workspace roots (where a read-write server's new repositories are looked for).
    roots: Vec<PathBuf>,
}

/// What a server started on first use is started with.
struct Deferred {
    context: LaunchContext,
    env: HashMap<String, String>,
    /// Where its listing is kept, rewritten when the server lists something else.
    cache: Option<PathBuf>,
}

/// The running process (or connection) of a server, once started.
struct Live {
    state: ServerState,
    connected: Option<Connected>,
    peer: Option<rmcp::Peer<RoleClient>>,
    pgid: Option<u32>,
    tmp: Option<PathBuf>,
}

impl Live {
    fn with(state: ServerState) -> Self {
        Self {
            state,
            connected: None,
            peer: None,
            pgid: None,
            tmp: None,
        }
    }
}

/// What one start produced: the listing (or why not), the process group and the private
/// temporary directory.
struct Launched {
    result: Result<Listed, String>,
    pgid: Option<u32>,
    tmp: Option<PathBuf>,
}

/// Why a call produced no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// No answer before the deadline.
    Deadline,
    /// The turn was cancelled meanwhile.
    Cancelled,
    /// The server answered with an error, or the connection failed.
    Failed(String),
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl McpServer {
    /// Start the server of `entry` on `runtime`, waiting at most its start deadline.
    pub(super) fn start(
        entry: McpEntry,
        runtime: Arc<tokio::runtime::Runtime>,
        context: &LaunchContext,
        env: &HashMap<String, String>,
    ) -> Self {
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let launched = launch_server(&entry, &runtime, context, env, &stderr);
        let mut server = Self {
            entry,
            tools: Vec::new(),
            resources: Vec::new(),
            runtime,
            live: Mutex::new(Live::with(ServerState::Started)),
            deferred: Mutex::new(None),
            stderr,
            roots: context.roots.clone(),
        };
        (server.tools, server.resources) = server.take_launch(launched);
        server
    }

    /// A server whose `tools` and `resources` are known from the list kept at `cache`: not
    /// started until one of them is used.
    pub(super) fn deferred(
        entry: McpEntry,
        runtime: Arc<tokio::runtime::Runtime>,
        context: &LaunchContext,
        env: &HashMap<String, String>,
        listing: (Vec<ListedTool>, Vec<ListedResource>),
        cache: Option<PathBuf>,
    ) -> Self {
        Self {
            entry,
            tools: listing.0,
            resources: listing.1,
            runtime,
            live: Mutex::new(Live::with(ServerState::Deferred)),
            deferred: Mutex::new(Some(Deferred {
                context: context.clone(),
                env: env.clone(),
                cache,
            })),
            stderr: Arc::new(Mutex::new(Vec::new())),
            roots: context.roots.clone(),
        }
    }

    /// Keep what a start produced; its listing.
    fn take_launch(&self, launched: Launched) -> (Vec<ListedTool>, Vec<ListedResource>) {
        let mut live = lock(&self.live);
        live.pgid = launched.pgid;
        live.tmp = launched.tmp;
        match launched.result {
            Ok((connected, tools, resources)) => {
                live.peer = Some(connected.service.peer().clone());
                live.connected = Some(connected);
                live.state = ServerState::Started;
                (tools, resources)
            }
            Err(why) => {
                drop(live);
                self.stop();
                let why = self.with_stderr(why);
                lock(&self.live).state = ServerState::Failed(why);
                (Vec::new(), Vec::new())
            }
        }
    }

    /// The connection's peer, starting a deferred server first (under its start deadline).
    fn peer(&self) -> Result<rmcp::Peer<RoleClient>, CallError> {
        // Held while the server starts: a second caller waits for that start.
        let mut pending = lock(&self.deferred);
        if let Some(deferred) = pending.take() {
            let launched = launch_server(
                &self.entry,
                &self.runtime,
                &deferred.context,
                &deferred.env,
                &self.stderr,
            );
            let listing = self.take_launch(launched);
            if let ServerState::Started = self.state()
                && (listing.0 != self.tools || listing.1 != self.resources)
                && let Some(cache) = &deferred.cache
            {
                // The model keeps this run's tools; the next run offers what it lists now.
                super::listing_cache::store(cache, &listing);
            }
        }
        drop(pending);
        let live = lock(&self.live);
        match (&live.state, &live.peer) {
            (ServerState::Failed(why), _) => Err(CallError::Failed(format!(
                "the server is not running: it failed to start: {why}"
            ))),
            (_, Some(peer)) => Ok(peer.clone()),
            (_, None) => Err(CallError::Failed("the server is not running".into())),
        }
    }

    /// A server that never started, for `why`.
    pub(super) fn failed(
        entry: McpEntry,
        runtime: Arc<tokio::runtime::Runtime>,
        why: &str,
    ) -> Self {
        Self {
            entry,
            tools: Vec::new(),
            resources: Vec::new(),
            runtime,
            live: Mutex::new(Live::with(ServerState::Failed(why.to_owned()))),
            deferred: Mutex::new(None),
            stderr: Arc::new(Mutex::new(Vec::new())),
            roots: Vec::new(),
        }
    }

    /// The server's entry.
    pub fn entry(&self) -> &McpEntry {
        &self.entry
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.entry.name
    }

    /// Started, deferred to its first use, or failed and why.
    pub fn state(&self) -> ServerState {
        lock(&self.live).state.clone()
    }

    /// Its tools (none when it failed).
    pub fn tools(&self) -> &[ListedTool] {
        &self.tools
    }

    /// Its resources (none when it failed or has none).
    pub fn resources(&self) -> &[ListedResource] {
        &self.resources
    }

    /// `why`, followed by the end of the server's standard error when it wrote any.
    fn with_stderr(&self, why: String) -> String {
        let tail = lock(&self.stderr);
        let text = String::from_utf8_lossy(&tail);
        let text = text.trim();
        if text.is_empty() {
            why
        } else {
            let text = text
                .strip_prefix(crate::sandbox::spec::SETUP_ERROR_PREFIX)
                .map_or_else(
                    || text.to_owned(),
                    |rest| format!("the sandbox cannot be built: {rest}"),
                );
            format!(
                "{why}; its error output ends: {}",
                text.replace('\n', " | ")
            )
        }
    }

    /// Run `request` on the runtime and wait for it under `timeout`, polling `cancelled`.
    fn wait<T: Send + 'static>(
        &self,
        request: impl Future<Output = Result<T, RequestError>> + Send + 'static,
        timeout: Duration,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<T, CallError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let task = self.runtime.spawn(async move {
            let _ = tx.send(request.await);
        });
        let started = Instant::now();
        loop {
            match rx.recv_timeout(POLL) {
                Ok(result) => {
                    return result.map_err(|err| match err {
                        // The server is alive and said no: its error output is not the cause.
                        RequestError::Answered(why) => CallError::Failed(why),
                        RequestError::Other(why) => CallError::Failed(self.with_stderr(why)),
                    });
                }
                Err(RecvTimeoutError::Timeout) => {
                    if started.elapsed() >= timeout {
                        task.abort();
                        return Err(CallError::Deadline);
                    }
                    if cancelled() {
                        task.abort();
                        return Err(CallError::Cancelled);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(CallError::Failed("the request was dropped".into()));
                }
            }
        }
    }

    /// Call tool `tool` with `arguments`; the result as the server sent it (JSON).
    pub fn call_tool(
        &self,
        tool: &str,
        arguments: &Value,
        timeout: Duration,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Value, CallError> {
        let peer = self.peer()?;
        let params: CallToolRequestParams =
            serde_json::from_value(json!({"name": tool, "arguments": arguments}))
                .map_err(|e| CallError::Failed(format!("invalid arguments: {e}")))?;
        self.wait(
            async move {
                let result = peer.call_tool(params).await.map_err(RequestError::from)?;
                serde_json::to_value(result).map_err(|e| RequestError::Other(e.to_string()))
            },
            timeout,
            cancelled,
        )
    }

    /// Read resource `uri`; the result as the server sent it (JSON).
    pub fn read_resource(&self, uri: &str, timeout: Duration) -> Result<Value, CallError> {
        let peer = self.peer()?;
        let params: ReadResourceRequestParams = serde_json::from_value(json!({"uri": uri}))
            .map_err(|e| CallError::Failed(format!("invalid URI: {e}")))?;
        self.wait(
            async move {
                let result = peer
                    .read_resource(params)
                    .await
                    .map_err(RequestError::from)?;
                serde_json::to_value(result).map_err(|e| RequestError::Other(e.to_string()))
            },
            timeout,
            &|| false,
        )
    }

    /// Move aside every repository a read-write server created under the roots since it
    /// started; one line per repository (none for any other server).
    pub fn move_planted(&self) -> Vec<String> {
        match &lock(&self.live).connected {
            Some(Connected {
                repos_before: Some(before),
                ..
            }) => move_aside(before, &self.roots, "the server"),
            _ => Vec::new(),
        }
    }

    /// Close the connection and kill the server's processes.
    fn stop(&self) {
        let pgid = lock(&self.live).pgid.take();
        if let Some(pgid) = pgid {
            launch::kill_group(pgid);
        }
        for line in self.move_planted() {
            tracing::warn!("MCP server `{}`: {line}", self.entry.name);
        }
        let connected = {
            let mut live = lock(&self.live);
            live.peer = None;
            live.connected.take()
        };
        if let Some(connected) = connected {
            let _guard = self.runtime.enter();
            drop(connected);
        }
        let tmp = lock(&self.live).tmp.take();
        if let Some(tmp) = tmp {
            launch::remove_tmp(&tmp);
        }
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Start the server of `entry` on `runtime`, waiting at most its start deadline; its error
/// output is kept in `stderr`.
fn launch_server(
    entry: &McpEntry,
    runtime: &Arc<tokio::runtime::Runtime>,
    context: &LaunchContext,
    env: &HashMap<String, String>,
    stderr: &Arc<Mutex<Vec<u8>>>,
) -> Launched {
    let deadline = Duration::from_secs(entry.start_timeout_s);
    let pgid = Arc::new(Mutex::new(None));
    let tmp = match &entry.transport {
        McpTransport::Stdio { .. } => launch::private_tmp(&format!("mcp-{}", entry.name)).map(Some),
        McpTransport::Http { .. } => Ok(None),
    };
    // The connection runs on the runtime's own (long-lived) thread: the sandbox launcher
    // dies with the thread that started it, which must outlive the server.
    let result = match &tmp {
        Err(why) => Err(why.clone()),
        Ok(tmp) => {
            let task = runtime.spawn(connect(
                entry.clone(),
                context.clone(),
                env.clone(),
                Arc::clone(stderr),
                Arc::clone(&pgid),
                tmp.clone(),
            ));
            let abort = task.abort_handle();
            runtime.block_on(async {
                    match tokio::time::timeout(deadline, task).await {
                        Ok(Ok(result)) => result,
                        Ok(Err(err)) => Err(format!("its start failed: {err}")),
                        Err(_) => {
                            abort.abort();
                            Err(format!(
                                "it did not answer `initialize` and `tools/list` within its start deadline of {} s (hung at start; `start_timeout_s` sets it)",
                                entry.start_timeout_s
                            ))
                        }
                    }
                })
        }
    };
    let pgid = *lock(&pgid);
    Launched {
        result,
        pgid,
        tmp: tmp.ok().flatten(),
    }
}

type Listed = (Connected, Vec<ListedTool>, Vec<ListedResource>);

/// Reach the server, `initialize`, list its tools and resources.
async fn connect(
    entry: McpEntry,
    context: LaunchContext,
    env: HashMap<String, String>,
    stderr: Arc<Mutex<Vec<u8>>>,
    pgid: Arc<Mutex<Option<u32>>>,
    tmp: Option<PathBuf>,
) -> Result<Listed, String> {
    let (service, child, proxy, placeholders, repos_before) = match &entry.transport {
        McpTransport::Stdio { command } => {
            let tmp = tmp.unwrap_or_else(std::env::temp_dir);
            let prepared = launch::prepare(&entry, command, &context, &tmp)?;
            let proxy = prepared.proxy;
            let placeholders = prepared.placeholders;
            let repos_before = prepared.repos_before;
            let mut cmd = prepared.command;
            let mut child = cmd.spawn().map_err(|e| {
                format!(
                    "cannot start {}: {e}",
                    cmd.as_std().get_program().to_string_lossy()
                )
            })?;
            *lock(&pgid) = child.id();
            if let (Some(proxy), Some(pid)) = (&proxy, child.id()) {
                proxy.admit(pid);
            }
            let (Some(mut stdin), Some(stdout), Some(err)) =
                (child.stdin.take(), child.stdout.take(), child.stderr.take())
            else {
                return Err("its standard streams could not be opened".into());
            };
            let tail = tokio::spawn(keep_tail(err, stderr, entry.name.clone()));
            if let Some(line) = prepared.spec_line {
                stdin
                    .write_all(&line)
                    .await
                    .map_err(|e| format!("writing the sandbox spec: {e}"))?;
            }
            match ().serve((stdout, stdin)).await {
                Ok(service) => (service, Some(child), proxy, placeholders, repos_before),
                Err(err) => return Err(exited(err.to_string(), &mut child, tail).await),
            }
        }
        McpTransport::Http { url } => {
            // reqwest's rustls needs a process-wide provider; another may be installed already.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let mut headers = HashMap::new();
            for header in &entry.headers {
                let value = env.get(&header.var).ok_or_else(|| {
                    format!(
                        "header `{}` takes its value from ${}, which is not set",
                        header.name, header.var
                    )
                })?;
                let name = header_name(&header.name)?;
                let value =
                    http_header_value(&format!("{}{value}", header.prefix)).map_err(|_| {
                        format!(
                            "header `{}`: ${} is not a valid header value",
                            header.name, header.var
                        )
                    })?;
                headers.insert(name, value);
            }
            let mut config =
                rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                    url.as_str(),
                );
            config.custom_headers = headers;
            let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
            let service =
                ().serve(transport)
                    .await
                    .map_err(|e| format!("connecting to {url}: {e}"))?;
            (service, None, None, Placeholders::default(), None)
        }
    };
    let tools = service
        .list_all_tools()
        .await
        .map_err(|e| format!("`tools/list` failed: {e}"))?
        .into_iter()
        .map(|tool| ListedTool {
            name: tool.name.to_string(),
            description: tool
                .description
                .map(|d| capped_description(&d))
                .unwrap_or_default(),
            input_schema: Value::Object((*tool.input_schema).clone()),
        })
        .collect();
    // A server without resources answers with an error: it simply has none.
    let resources = service
        .list_all_resources()
        .await
        .map(|list| {
            list.into_iter()
                .filter_map(|r| serde_json::to_value(&r).ok())
                .map(|r| ListedResource {
                    uri: r["uri"].as_str().unwrap_or_default().to_owned(),
                    name: r["name"].as_str().unwrap_or_default().to_owned(),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok((
        Connected {
            service,
            _child: child,
            _proxy: proxy,
            _placeholders: placeholders,
            repos_before,
        },
        tools,
        resources,
    ))
}

/// Longest tool description passed on to the model, in bytes (as for tool plugins).
const MAX_DESCRIPTION_BYTES: usize = 4096;

/// `text` cut at [`MAX_DESCRIPTION_BYTES`] on a character boundary.
fn capped_description(text: &str) -> String {
    let mut end = text.len().min(MAX_DESCRIPTION_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

fn header_name(name: &str) -> Result<http::HeaderName, String> {
    http::HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("`{name}` is not a header name"))
}

fn http_header_value(value: &str) -> Result<http::HeaderValue, http::header::InvalidHeaderValue> {
    let mut value = http::HeaderValue::from_str(value)?;
    value.set_sensitive(true);
    Ok(value)
}

/// A failed `initialize`: say how the process ended, if it did (waiting briefly for it, and
/// for the rest of its error output).
async fn exited(
    why: String,
    child: &mut tokio::process::Child,
    tail: tokio::task::JoinHandle<()>,
) -> String {
    let grace = Duration::from_millis(500);
    let message = match tokio::time::timeout(grace, child.wait()).await {
        Ok(Ok(status)) => format!("it exited at start ({status}) before answering `initialize`"),
        _ => format!("`initialize` failed: {why}"),
    };
    let _ = tokio::time::timeout(grace, tail).await;
    message
}

/// Keep the last bytes of a server's standard error (each line also logged).
async fn keep_tail(
    mut stream: tokio::process::ChildStderr,
    tail: Arc<Mutex<Vec<u8>>>,
    server: String,
) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        tracing::debug!(
            server,
            "stderr: {}",
            String::from_utf8_lossy(chunk).trim_end()
        );
        let mut tail = lock(&tail);
        tail.extend_from_slice(chunk);
        let excess = tail.len().saturating_sub(STDERR_TAIL);
        tail.drain(..excess);
    }
}

/// Why a request to a running server failed.
enum RequestError {
    /// The server answered with a JSON-RPC error.
    Answered(String),
    /// Anything else: the transport closed, the answer could not be read, ...
    Other(String),
}

impl From<rmcp::ServiceError> for RequestError {
    fn from(err: rmcp::ServiceError) -> Self {
        match err {
            rmcp::ServiceError::McpError(data) => Self::Answered(format!(
                "the server answered: {} (error {})",
                data.message, data.code.0
            )),
            other => Self::Other(other.to_string()),
        }
    }
}
