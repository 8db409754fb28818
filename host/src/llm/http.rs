//! Transport shared by the HTTP providers: one POST with timeouts, streaming through the
//! [`sse`](super::sse) parser, cancellation, error statuses, and the retry loop.
//!
//! Timeouts: `timeout` bounds the wait for the response headers and every wait for more body
//! data, so a long answer that keeps streaming is never cut, and a stalled one is: for a
//! streamed request it is a time to first byte and an idle-stream timeout. The headers of a
//! non-streamed answer only come once the whole answer is written, so their wait is at least
//! [`WHOLE_ANSWER_WAIT`].
//!
//! Retries: a retryable failure ([`LlmError::is_retryable`]) is retried per the
//! [`RetryPolicy`] only while no answer content has been reported to the caller; the whole
//! request is sent again. Content already shown cannot be taken back, so after it a failure
//! ends the request with that error. A server that cannot be reached (refused, no such host)
//! is retried once at most.
//!
//! Wait budget: every attempt until the answer begins, and every wait between attempts, comes
//! out of one budget per request (`model.max_wait_s`; for a non-streamed request at least
//! [`WHOLE_ANSWER_WAIT`]). When it runs out the request fails with
//! [`LlmError::WaitBudget`]; each attempt is announced with [`StreamEvent::Waiting`] so that a
//! front end can count down.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use tokio::runtime::Runtime;

use super::retry::{RetryPolicy, wait_from_headers};

/// Shortest wait for the headers of a non-streamed answer, which the server sends only after
/// writing the whole answer (minutes for a long one).
pub const WHOLE_ANSWER_WAIT: Duration = Duration::from_secs(300);
use super::sse::{SseEvent, SseParser};
use super::{CancelToken, LlmError, Response};
use crate::domain::StreamEvent;

/// What one wire format must provide to the transport.
pub(crate) trait WireFormat {
    /// Stream decoder of this format.
    type Stream: StreamDecode;
    /// Provider name for errors.
    fn provider(&self) -> &'static str;
    /// A decoder for a new stream.
    fn stream_decoder(&self) -> Self::Stream;
    /// Decodes a whole (non-streamed) response body.
    fn decode_body(&self, body: &[u8]) -> Result<Response, LlmError>;
}

/// Whether a stream goes on after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Keep reading.
    Continue,
    /// The terminal event arrived.
    Done,
}

/// Turns the SSE events of one answer into [`StreamEvent`]s and, at the end, a [`Response`].
pub(crate) trait StreamDecode {
    /// Handles one event.
    fn event(
        &mut self,
        ev: &SseEvent,
        emit: &mut dyn FnMut(&StreamEvent),
    ) -> Result<Flow, LlmError>;
    /// The stream is over: `terminal` tells whether its terminal event arrived.
    fn finish(self, terminal: bool) -> Result<Response, LlmError>;
}

/// One prepared POST.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// Full URL.
    pub url: String,
    /// Headers besides `content-type`.
    pub headers: HeaderMap,
    /// JSON body.
    pub body: Vec<u8>,
    /// The body asks for a stream.
    pub stream: bool,
}

impl Call {
    /// A POST of `body` as JSON to `url` with `headers`, asking for an event stream when
    /// `stream` is set.
    pub fn json(url: &str, headers: &HeaderMap, body: &serde_json::Value, stream: bool) -> Self {
        let mut headers = headers.clone();
        if stream {
            headers.insert(
                reqwest::header::ACCEPT,
                reqwest::header::HeaderValue::from_static("text/event-stream"),
            );
        }
        Self {
            url: url.to_owned(),
            headers,
            body: body.to_string().into_bytes(),
            stream,
        }
    }
}

/// A reqwest client with its own current-thread runtime.
#[derive(Debug)]
pub(crate) struct HttpClient {
    rt: Runtime,
    client: reqwest::Client,
    timeout: Duration,
    retry: RetryPolicy,
    max_wait: Duration,
}

/// How one attempt ended.
enum Waited {
    Cancelled,
    OutOfBudget,
    Done(Result<Response, LlmError>),
}

/// Returns once `deadline` passes unless answer content has arrived by then (a streaming
/// answer is never cut by the budget; the idle timeout still bounds each wait).
async fn budget_spent(deadline: Instant, emitted: &Cell<bool>) {
    tokio::time::sleep_until(deadline.into()).await;
    if emitted.get() {
        std::future::pending::<()>().await;
    }
}

impl HttpClient {
    /// A client with the given timeout, retry policy and wait budget.
    pub fn new(
        timeout: Duration,
        retry: RetryPolicy,
        max_wait: Duration,
    ) -> Result<Self, LlmError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| LlmError::InvalidConfig {
                reason: format!("cannot start the HTTP runtime: {e}"),
            })?;
        let client = reqwest::Client::builder()
            .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(timeout)
            .build()
            .map_err(|e| LlmError::InvalidConfig {
                reason: format!("cannot build the HTTP client: {e}"),
            })?;
        Ok(Self {
            rt,
            client,
            timeout,
            retry,
            max_wait,
        })
    }

    /// Sends `call` with retries, reporting content to `on_event`.
    pub fn execute<W: WireFormat>(
        &self,
        call: &Call,
        wire: &W,
        on_event: &mut dyn FnMut(&StreamEvent),
        cancel: &CancelToken,
    ) -> Result<Response, LlmError> {
        let provider = wire.provider();
        // A non-streamed answer's headers come only once it is all written.
        let budget = if call.stream {
            self.max_wait
        } else {
            self.max_wait.max(WHOLE_ANSWER_WAIT)
        };
        let deadline = Instant::now() + budget;
        let attempts = self.retry.max_retries.saturating_add(1);
        let out_of_budget = |attempt: u32, last: Option<LlmError>| LlmError::WaitBudget {
            provider,
            budget,
            attempts: attempt,
            last: last.map(Box::new),
        };
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            on_event(&StreamEvent::Waiting {
                provider,
                attempt,
                attempts,
                left: deadline.saturating_duration_since(Instant::now()),
            });
            let emitted = Cell::new(false);
            let mut partial = String::new();
            let mut sink = |ev: &StreamEvent| {
                if let StreamEvent::TextDelta(t) = ev {
                    partial.push_str(t);
                }
                if ev.is_content() {
                    emitted.set(true);
                }
                on_event(ev);
            };
            let result = self.rt.block_on(async {
                tokio::select! {
                    biased;
                    () = cancel.cancelled() => Waited::Cancelled,
                    () = budget_spent(deadline, &emitted) => Waited::OutOfBudget,
                    r = self.attempt(call, wire, &mut sink) => Waited::Done(r),
                }
            });
            let err = match result {
                Waited::Cancelled => {
                    return Err(LlmError::Cancelled {
                        partial_text: partial,
                    });
                }
                Waited::OutOfBudget => return Err(out_of_budget(attempt, None)),
                Waited::Done(Ok(response)) => return Ok(response),
                Waited::Done(Err(e)) => e,
            };
            if !err.is_retryable() {
                return Err(err);
            }
            if emitted.get() {
                // The error itself reaches the person as the turn's alert; this is for the log.
                tracing::debug!(provider, error = %err, "stream failed after content was shown; not retried");
                return Err(err);
            }
            // A server that cannot be reached is tried once more, not for the whole budget.
            let unreachable = matches!(err, LlmError::Unreachable { .. });
            if attempt > self.retry.max_retries || (unreachable && attempt > 1) {
                return Err(if attempt > 1 {
                    LlmError::RetriesExhausted {
                        attempts: attempt,
                        last: Box::new(err),
                    }
                } else {
                    err
                });
            }
            let delay = self.retry.delay(attempt, err.retry_after());
            if Instant::now() + delay >= deadline {
                return Err(out_of_budget(attempt, Some(err)));
            }
            // The caller shows each retry to the person; a log line would say it twice.
            tracing::debug!(provider, attempt, ?delay, error = %err, "retrying model request");
            on_event(&StreamEvent::Retrying {
                attempt,
                delay,
                reason: err.brief(),
            });
            let waited = self.rt.block_on(async {
                tokio::select! {
                    biased;
                    () = cancel.cancelled() => false,
                    () = tokio::time::sleep(delay) => true,
                }
            });
            if !waited {
                return Err(LlmError::Cancelled {
                    partial_text: String::new(),
                });
            }
        }
    }

    async fn attempt<W: WireFormat>(
        &self,
        call: &Call,
        wire: &W,
        emit: &mut dyn FnMut(&StreamEvent),
    ) -> Result<Response, LlmError> {
        let provider = wire.provider();
        tracing::debug!(provider, url = %call.url, bytes = call.body.len(), stream = call.stream, "model request");
        let send = self
            .client
            .post(&call.url)
            .headers(call.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(call.body.clone())
            .send();
        let header_wait = if call.stream {
            self.timeout
        } else {
            self.timeout.max(WHOLE_ANSWER_WAIT)
        };
        let mut resp = tokio::time::timeout(header_wait, send)
            .await
            .map_err(|_| LlmError::Timeout {
                provider,
                after: header_wait,
            })?
            .map_err(|e| transport_error(provider, &e, header_wait))?;
        let status = resp.status().as_u16();
        if !resp.status().is_success() {
            let headers = resp.headers().clone();
            let body = self
                .read_body(provider, &mut resp)
                .await
                .unwrap_or_default();
            return Err(status_error(provider, status, &headers, &body));
        }
        let is_sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !(call.stream && is_sse) {
            // Some compatible servers answer a stream request with a plain body.
            let body = self.read_body(provider, &mut resp).await?;
            let response = wire.decode_body(&body)?;
            emit_whole(&response, emit);
            return Ok(response);
        }
        let mut parser = SseParser::new();
        let mut decoder = wire.stream_decoder();
        while let Some(chunk) = self.next_chunk(provider, &mut resp).await? {
            if decode_chunk(&mut parser, &mut decoder, chunk.as_ref(), emit)? {
                return decoder.finish(true);
            }
        }
        decoder.finish(false)
    }

    async fn next_chunk(
        &self,
        provider: &'static str,
        resp: &mut reqwest::Response,
    ) -> Result<Option<impl AsRef<[u8]> + use<>>, LlmError> {
        tokio::time::timeout(self.timeout, resp.chunk())
            .await
            .map_err(|_| self.timed_out(provider))?
            .map_err(|e| transport_error(provider, &e, self.timeout))
    }

    async fn read_body(
        &self,
        provider: &'static str,
        resp: &mut reqwest::Response,
    ) -> Result<Vec<u8>, LlmError> {
        let mut body = Vec::new();
        while let Some(chunk) = self.next_chunk(provider, resp).await? {
            body.extend_from_slice(chunk.as_ref());
        }
        Ok(body)
    }

    fn timed_out(&self, provider: &'static str) -> LlmError {
        LlmError::Timeout {
            provider,
            after: self.timeout,
        }
    }
}

/// Feeds one chunk through `parser` into `decoder`; true once the terminal event arrived (the
/// rest of the chunk is then ignored).
pub(crate) fn decode_chunk<D: StreamDecode>(
    parser: &mut SseParser,
    decoder: &mut D,
    chunk: &[u8],
    emit: &mut dyn FnMut(&StreamEvent),
) -> Result<bool, LlmError> {
    let flow = parser.feed_with(chunk, |ev| match decoder.event(ev, emit) {
        Ok(Flow::Continue) => ControlFlow::Continue(()),
        Ok(Flow::Done) => ControlFlow::Break(None),
        Err(e) => ControlFlow::Break(Some(e)),
    });
    match flow {
        ControlFlow::Continue(()) => Ok(false),
        ControlFlow::Break(None) => Ok(true),
        ControlFlow::Break(Some(e)) => Err(e),
    }
}

/// Reports a non-streamed answer the way a stream would, one piece per text and tool call.
pub(crate) fn emit_whole(response: &Response, emit: &mut dyn FnMut(&StreamEvent)) {
    if !response.text.is_empty() {
        emit(&StreamEvent::TextDelta(response.text.clone()));
    }
    for call in &response.tool_calls {
        emit(&StreamEvent::ToolCallStarted {
            id: call.id.clone(),
            name: call.name.clone(),
        });
        emit(&StreamEvent::ToolCallArgumentsDelta {
            id: call.id.clone(),
            delta: call.arguments.to_string(),
        });
    }
}

/// Parses accumulated tool arguments; an empty string is an empty object.
pub(crate) fn parse_arguments(json: &str) -> Result<serde_json::Value, serde_json::Error> {
    if json.trim().is_empty() {
        Ok(serde_json::Value::Object(serde_json::Map::new()))
    } else {
        serde_json::from_str(&super::surrogates::replaced_in_str(json))
    }
}

fn transport_error(provider: &'static str, e: &reqwest::Error, timeout: Duration) -> LlmError {
    if e.is_timeout() {
        return LlmError::Timeout {
            provider,
            after: timeout,
        };
    }
    if e.is_connect() {
        let target = e
            .url()
            .map(|u| {
                let host = u.host_str().unwrap_or("?");
                match u.port_or_known_default() {
                    Some(port) => format!("{host}:{port}"),
                    None => host.to_owned(),
                }
            })
            .unwrap_or_else(|| "the server".to_owned());
        // The innermost cause says it all (`Connection refused`, a DNS failure); the layers
        // above it only repeat the URL.
        let mut cause: &dyn std::error::Error = e;
        while let Some(inner) = cause.source() {
            cause = inner;
        }
        return LlmError::Unreachable {
            provider,
            target,
            detail: cause.to_string(),
        };
    }
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail.push_str(": ");
        detail.push_str(&s.to_string());
        source = s.source();
    }
    LlmError::Connection { provider, detail }
}

/// The error for a non-2xx answer, carrying the provider's own message.
pub(crate) fn status_error(
    provider: &'static str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> LlmError {
    let should_retry = headers
        .get("x-should-retry")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| match v {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        });
    LlmError::Status {
        provider,
        status,
        message: error_message(status, body),
        retry_after: wait_from_headers(headers, status),
        should_retry,
    }
}

/// The provider's message from an error body: `error.message` (with `error.type`) for both
/// APIs, else the start of the body, else the status's reason phrase.
pub(crate) fn error_message(status: u16, body: &[u8]) -> String {
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(body) {
        let err = json.get("error").unwrap_or(&json);
        let message = err
            .get("message")
            .and_then(|m| m.as_str())
            .or_else(|| err.as_str());
        let kind = err.get("type").and_then(|t| t.as_str());
        match (message, kind) {
            (Some(m), Some(k)) => return format!("{m} ({k})"),
            (Some(m), None) => return m.to_owned(),
            _ => {}
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("no message")
            .to_owned();
    }
    let mut cut = text.len().min(500);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text[..cut].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_of_both_apis() {
        let anthropic = br#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        assert_eq!(
            error_message(401, anthropic),
            "invalid x-api-key (authentication_error)"
        );
        let openai = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(
            error_message(401, openai),
            "Incorrect API key provided (invalid_request_error)"
        );
        assert_eq!(
            error_message(502, b"<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
        assert_eq!(error_message(503, b""), "Service Unavailable");
    }
}
