//! What the mock server answers: a queue of [`Reply`]s, one per request, in order.

use serde_json::Value;

/// One tool call of a scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub struct MockCall {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments object.
    pub arguments: Value,
}

/// A model answer, rendered in whichever wire format the request used, streamed if the request
/// asked for a stream.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    /// Answer text; streamed one word (with its trailing space) per delta.
    pub text: String,
    /// Tool calls; each call's arguments are streamed in two halves.
    pub tool_calls: Vec<MockCall>,
}

/// A scripted reply to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A complete answer.
    Answer(Answer),
    /// An HTTP error with headers and a body sent as is.
    Error {
        /// Status code.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// Body (usually the provider's JSON error).
        body: String,
    },
    /// The answer's stream cut after `events` events: the body ends cleanly, without the
    /// terminal event.
    Cut {
        /// The answer whose stream is cut.
        answer: Answer,
        /// Events sent before the end.
        events: usize,
    },
    /// The answer's stream with its event number `at` (from 0) replaced by malformed JSON.
    Malformed {
        /// The answer.
        answer: Answer,
        /// Index of the broken event.
        at: usize,
    },
    /// `events` events of the answer's stream, then silence with the connection held open.
    Stall {
        /// The answer.
        answer: Answer,
        /// Events sent before stalling.
        events: usize,
    },
    /// Read the request, then close the connection with a TCP reset.
    Reset,
    /// Read the request, then never answer (for client timeouts).
    Hang,
    /// Wait, then send another reply.
    Delay {
        /// Milliseconds to wait.
        ms: u64,
        /// The reply sent after the wait.
        reply: Box<Reply>,
    },
    /// A 200 `text/event-stream` body sent verbatim.
    RawSse(String),
}

impl Reply {
    /// An answer with only text.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Answer(Answer {
            text: text.into(),
            tool_calls: Vec::new(),
        })
    }

    /// An answer with text and tool calls `(id, name, arguments)`.
    pub fn tool_calls(text: impl Into<String>, calls: &[(&str, &str, Value)]) -> Self {
        Self::Answer(Answer {
            text: text.into(),
            tool_calls: calls
                .iter()
                .map(|(id, name, arguments)| MockCall {
                    id: (*id).to_owned(),
                    name: (*name).to_owned(),
                    arguments: arguments.clone(),
                })
                .collect(),
        })
    }

    /// An HTTP error with a JSON body `{"type":"error","error":{"type":kind,"message":message}}`
    /// (the shape both APIs' clients read `error.message` from).
    pub fn error(status: u16, kind: &str, message: &str) -> Self {
        let body = serde_json::json!({
            "type": "error",
            "error": {"type": kind, "message": message},
        });
        Self::Error {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    /// This reply with an extra header (for [`Reply::Error`]; other replies are unchanged).
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        if let Self::Error { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    /// The stream of `answer` cut after `events` events.
    pub fn cut(answer: &str, events: usize) -> Self {
        Self::Cut {
            answer: Answer {
                text: answer.into(),
                tool_calls: Vec::new(),
            },
            events,
        }
    }

    /// The stream of `answer` with event `at` malformed.
    pub fn malformed(answer: &str, at: usize) -> Self {
        Self::Malformed {
            answer: Answer {
                text: answer.into(),
                tool_calls: Vec::new(),
            },
            at,
        }
    }

    /// `events` events of `answer`'s stream, then silence.
    pub fn stall(answer: &str, events: usize) -> Self {
        Self::Stall {
            answer: Answer {
                text: answer.into(),
                tool_calls: Vec::new(),
            },
            events,
        }
    }

    /// `reply` after `ms` milliseconds.
    pub fn delay(ms: u64, reply: Reply) -> Self {
        Self::Delay {
            ms,
            reply: Box::new(reply),
        }
    }
}
