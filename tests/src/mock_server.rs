//! A mock model server: real HTTP/1.1 on `127.0.0.1`, speaking the Anthropic Messages
//! (`POST /v1/messages`) and OpenAI Chat Completions (`POST /v1/chat/completions`) wire
//! formats, streamed (SSE, chunked) or not, as each request asks.
//!
//! Scripted with a queue of [`Reply`]s — answers, HTTP errors, cut or malformed streams,
//! resets, hangs, stalls, delays — consumed one per request; when the queue is empty it answers
//! 400 with a message saying so. Every request is recorded ([`Recorded`]) for whole-request
//! comparisons. The server runs on its own thread and stops when dropped.
//!
//! - `script`: [`Reply`] and its builders.
//! - `render`: answers in each wire format.
//! - `http`: reading requests and writing responses.

mod http;
mod render;
mod script;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

pub use http::Recorded;
pub use render::{Format, INPUT_TOKENS, OUTPUT_TOKENS, words};
pub use script::{Answer, MockCall, Reply};

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    requests: Vec<Recorded>,
}

type Shared = Arc<Mutex<State>>;

/// A running mock server.
pub struct MockServer {
    addr: SocketAddr,
    state: Shared,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Starts a server on a free loopback port.
    pub fn start() -> anyhow::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let state = Shared::default();
        let (shutdown, stop) = oneshot::channel();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let thread_state = state.clone();
        let thread = std::thread::Builder::new()
            .name("mock-model-server".into())
            .spawn(move || rt.block_on(serve(listener, thread_state, stop)))?;
        Ok(Self {
            addr,
            state,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:<port>`: the value for `ANTHROPIC_BASE_URL` (no `/v1`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:<port>/v1`: the value for `OPENAI_BASE_URL`.
    pub fn openai_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Queues a reply for a future request.
    pub fn push(&self, reply: Reply) -> &Self {
        self.lock().replies.push_back(reply);
        self
    }

    /// A scenario of two replies: the model calls tool `name` with `arguments` (call id `id`),
    /// then, once the result is sent back, answers `answer`.
    pub fn script_tool_call(
        &self,
        id: &str,
        name: &str,
        arguments: serde_json::Value,
        answer: &str,
    ) -> &Self {
        self.push(Reply::tool_calls("", &[(id, name, arguments)]));
        self.push(Reply::text(answer))
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.lock().requests.clone()
    }

    /// Replies not yet used.
    pub fn pending_replies(&self) -> usize {
        self.lock().replies.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(listener: std::net::TcpListener, state: Shared, mut stop: oneshot::Receiver<()>) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(handle(stream, state.clone()));
                }
            }
        }
    }
}

async fn handle(mut stream: TcpStream, state: Shared) {
    let Some(request) = http::read_request(&mut stream).await else {
        return;
    };
    let format = if request.path.ends_with("/v1/messages") {
        Some(Format::Anthropic)
    } else if request.path.ends_with("/v1/chat/completions") {
        Some(Format::OpenAi)
    } else {
        None
    };
    let wants_stream = request.body.get("stream") == Some(&json!(true));
    let model = request.body["model"].as_str().unwrap_or("mock").to_owned();
    let path = request.path.clone();
    let reply = {
        let mut s = state.lock().unwrap_or_else(PoisonError::into_inner);
        s.requests.push(request);
        s.replies.pop_front()
    };
    let reply = match (format, reply) {
        (None, _) => Reply::error(
            404,
            "not_found_error",
            &format!("mock server: no route for {path}"),
        ),
        (Some(_), None) => Reply::error(400, "mock_error", "mock server: no scripted reply left"),
        (Some(_), Some(reply)) => reply,
    };
    let format = format.unwrap_or(Format::Anthropic);
    let _ = respond(&mut stream, reply, format, wants_stream, &model).await;
}

async fn respond(
    stream: &mut TcpStream,
    mut reply: Reply,
    format: Format,
    wants_stream: bool,
    model: &str,
) -> std::io::Result<()> {
    while let Reply::Delay { ms, reply: next } = reply {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        reply = *next;
    }
    match reply {
        Reply::Answer(answer) if !wants_stream => {
            let body = render::body(format, &answer, model).to_string();
            http::write_fixed(stream, 200, "application/json", &[], body.as_bytes()).await
        }
        Reply::Answer(answer) => {
            let events = render::events(format, &answer, model);
            send_events(stream, &events, events.len(), true).await
        }
        Reply::Cut { answer, events } => {
            send_events(
                stream,
                &render::events(format, &answer, model),
                events,
                true,
            )
            .await
        }
        Reply::Malformed { answer, at } => {
            let mut events = render::events(format, &answer, model);
            if let Some(ev) = events.get_mut(at) {
                *ev = match format {
                    Format::Anthropic => "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\n\n".to_owned(),
                    Format::OpenAi => "data: {\"choices\":[{\"index\":0,\"delta\":\n\n".to_owned(),
                };
            }
            send_events(stream, &events, events.len(), true).await
        }
        Reply::Stall { answer, events } => {
            send_events(
                stream,
                &render::events(format, &answer, model),
                events,
                false,
            )
            .await?;
            std::future::pending::<()>().await;
            Ok(())
        }
        Reply::Error {
            status,
            headers,
            body,
        } => {
            http::write_fixed(
                stream,
                status,
                "application/json",
                &headers,
                body.as_bytes(),
            )
            .await
        }
        Reply::Reset => stream.set_zero_linger(),
        Reply::Hang => {
            std::future::pending::<()>().await;
            Ok(())
        }
        Reply::RawSse(text) => {
            http::write_stream_head(stream).await?;
            http::write_chunk(stream, text.as_bytes()).await?;
            http::write_end(stream).await
        }
        Reply::Delay { .. } => Ok(()),
    }
}

async fn send_events(
    stream: &mut TcpStream,
    events: &[String],
    count: usize,
    end: bool,
) -> std::io::Result<()> {
    http::write_stream_head(stream).await?;
    for ev in events.iter().take(count) {
        http::write_chunk(stream, ev.as_bytes()).await?;
    }
    if end {
        http::write_end(stream).await?;
    }
    Ok(())
}
