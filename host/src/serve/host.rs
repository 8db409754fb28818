//! The thread that owns the worker: plugins, resolver, tools and the session are not `Send`,
//! so they live on one thread and the MCP handler sends it jobs. Calls run one at a time, in
//! the order they arrive, as a turn's calls do.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{mpsc, oneshot};

use super::approve::{Asker, ServeSink};
use super::resources::{self, ListedFile};
use crate::config::Config;
use crate::domain::{Resolve, Resolved, ToolCall, ToolSpec};
use crate::llm::echo::EchoProvider;
use crate::setup::{self, SetupError};
use crate::store::{AuditEvent, AuditLog, Home, SessionWriter};
use crate::worker::{Hooks, ServedCall, Worker, WorkerParts};

/// What `warden mcp serve` serves.
pub struct ServeOptions {
    /// The configuration, loaded as `warden run` loads it (trust gate and `--mode` applied).
    pub config: Config,
    /// The canonical workspace root.
    pub workspace: PathBuf,
    /// `$WARDEN_HOME`.
    pub home: Home,
    /// `--yes`: approve every call that would ask.
    pub yes: bool,
    /// Environment lookup for tool plugins' `env` grants.
    pub env: fn(&str) -> Option<String>,
}

/// Why serving could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The worker could not be assembled (exit 2 when `usage`).
    #[error("{message}")]
    Setup {
        /// What went wrong.
        message: String,
        /// A configuration or usage error rather than a runtime failure.
        usage: bool,
    },
    /// `--http` names an address that is not loopback, or cannot be parsed.
    #[error("{0}")]
    Address(String),
    /// The transport failed.
    #[error("{0}")]
    Transport(String),
}

impl ServeError {
    /// True when the person must fix configuration or usage (exit 2).
    pub fn is_usage(&self) -> bool {
        match self {
            Self::Setup { usage, .. } => *usage,
            Self::Address(_) => true,
            Self::Transport(_) => false,
        }
    }
}

impl From<SetupError> for ServeError {
    fn from(err: SetupError) -> Self {
        Self::Setup {
            usage: err.is_usage(),
            message: err.to_string(),
        }
    }
}

/// One job for the worker's thread.
enum Job {
    Call {
        call: ToolCall,
        asker: Asker,
        reply: oneshot::Sender<Result<ServedCall, String>>,
    },
    List {
        reply: oneshot::Sender<Vec<ListedFile>>,
    },
    Read {
        path: String,
        reply: oneshot::Sender<Result<Resolved, String>>,
    },
}

/// The handle the MCP handler holds: cheap to clone, `Send`.
#[derive(Clone)]
pub(crate) struct WorkerHandle {
    jobs: mpsc::UnboundedSender<Job>,
    /// The tools served, in order.
    pub(crate) tools: Arc<Vec<ToolSpec>>,
    /// The workspace root.
    pub(crate) root: Arc<PathBuf>,
    /// `--yes`.
    pub(crate) yes: bool,
    /// The serve session's id.
    pub(crate) session: Arc<String>,
    /// Calls received so far, over every client session of this process (call ids are
    /// `mcp-N`, unique in the serve session's audit log).
    calls: Arc<AtomicU64>,
}

const GONE: &str = "the worker thread has stopped";

impl WorkerHandle {
    /// The number of the next call, from 1.
    pub(crate) fn next_call(&self) -> u64 {
        self.calls.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Serve `call`, asking through `asker` when the path asks.
    pub(crate) async fn call(&self, call: ToolCall, asker: Asker) -> Result<ServedCall, String> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::Call { call, asker, reply })
            .map_err(|_| GONE.to_owned())?;
        answer.await.map_err(|_| GONE.to_owned())?
    }

    /// The workspace files offered as resources (bounded).
    pub(crate) async fn list(&self) -> Result<Vec<ListedFile>, String> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::List { reply })
            .map_err(|_| GONE.to_owned())?;
        answer.await.map_err(|_| GONE.to_owned())
    }

    /// Read the workspace file at `path` (relative to the root) through the resolver.
    pub(crate) async fn read(&self, path: String) -> Result<Resolved, String> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::Read { path, reply })
            .map_err(|_| GONE.to_owned())?;
        answer.await.map_err(|_| GONE.to_owned())?
    }
}

/// Start the worker's thread for `options`, its session's audit log opened with an
/// `mcp-serve` record naming `transport`.
pub(crate) fn start(options: ServeOptions, transport: &str) -> Result<WorkerHandle, ServeError> {
    let (jobs, mut queue) = mpsc::unbounded_channel::<Job>();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let transport = transport.to_owned();
    let root = options.workspace.clone();
    let yes = options.yes;
    std::thread::Builder::new()
        .name("warden-mcp-worker".into())
        .spawn(move || {
            let opened = open(&options, &transport);
            let (mut worker, mut resolver) = match opened {
                Ok(parts) => parts,
                Err(err) => {
                    let _ = ready_tx.send(Err(err));
                    return;
                }
            };
            let ready = (worker.tool_specs(), worker.session_id().to_owned());
            if ready_tx.send(Ok(ready)).is_err() {
                return;
            }
            let fileref = options.config.fileref.clone();
            while let Some(job) = queue.blocking_recv() {
                match job {
                    Job::Call { call, asker, reply } => {
                        let mut sink = ServeSink::new(asker);
                        let served = worker
                            .serve_call(&mut sink, &call)
                            .map_err(|err| err.to_string());
                        let _ = reply.send(served);
                    }
                    Job::List { reply } => {
                        let _ = reply.send(resources::list(resolver.as_mut()));
                    }
                    Job::Read { path, reply } => {
                        let read = resources::read(resolver.as_mut(), &fileref, &path);
                        let _ = reply.send(read);
                    }
                }
            }
        })
        .map_err(|err| ServeError::Transport(format!("cannot start the worker thread: {err}")))?;
    let (tools, session) = ready_rx
        .recv()
        .map_err(|_| ServeError::Transport(GONE.to_owned()))??;
    Ok(WorkerHandle {
        jobs,
        tools: Arc::new(tools),
        root: Arc::new(root),
        yes,
        session: Arc::new(session),
        calls: Arc::new(AtomicU64::new(0)),
    })
}

/// The worker (no model: nothing here asks one) and a resolver for resources, both under the
/// configuration's plugins and rules, on a new session.
fn open(options: &ServeOptions, transport: &str) -> Result<(Worker, Box<dyn Resolve>), ServeError> {
    let (config, workspace, home) = (&options.config, &options.workspace, &options.home);
    let engine = setup::engine_for(Some(home), config)?;
    let resolver: Box<dyn Resolve> = Box::new(setup::resolver(&engine, config, workspace)?);
    let for_resources: Box<dyn Resolve> = Box::new(setup::resolver(&engine, config, workspace)?);
    let (chain, hooks) = setup::plugins(&engine, config, workspace)?;
    let env = options.env;
    let tools = setup::tool_registry(
        config,
        workspace,
        &setup::tool_plugins(&engine, config, workspace, &env)?,
    )?;
    let writer = SessionWriter::create(home, None, workspace).map_err(SetupError::from)?;
    let audit = AuditLog::open(home, writer.id()).map_err(SetupError::from)?;
    let mut worker = Worker::new(WorkerParts {
        writer,
        audit,
        provider: Box::new(EchoProvider::new()),
        resolver,
        chain,
        hooks: Hooks::new(hooks),
        tools,
        config: config.clone(),
    });
    worker
        .audit_now(AuditEvent::Other {
            kind: "mcp-serve".into(),
            detail: serde_json::json!({
                "transport": transport,
                "mode": config.tools.mode,
                "yes": options.yes,
            }),
        })
        .map_err(|err| ServeError::Setup {
            message: err.to_string(),
            usage: false,
        })?;
    Ok((worker, for_resources))
}
