//! OpenAI-compatible Chat Completions (`POST {OPENAI_BASE_URL}/chat/completions`), streamed or
//! not: OpenAI itself and compatible servers (Ollama, vLLM, llama.cpp, LM Studio).
//!
//! - [`wire`]: history → request body.
//! - `decode`: streamed chunks and whole bodies → [`Response`].

mod decode;
pub mod wire;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};

use super::http::{Call, HttpClient, WireFormat};
use super::{CancelToken, LlmError, Provider, ProviderSettings, Request, Response};
use crate::domain::StreamEvent;

pub(crate) use decode::OpenAiStream;

/// Base URL when `OPENAI_BASE_URL` is unset (with `/v1`).
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Model used when the config names none.
pub const DEFAULT_MODEL: &str = "gpt-4.1";

/// The Chat Completions wire format, for the transport.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenAiWire;

impl WireFormat for OpenAiWire {
    type Stream = OpenAiStream;

    fn provider(&self) -> &'static str {
        "openai"
    }

    fn stream_decoder(&self) -> OpenAiStream {
        OpenAiStream::default()
    }

    fn decode_body(&self, body: &[u8]) -> Result<Response, LlmError> {
        decode::decode_body(body)
    }
}

/// A provider speaking OpenAI-compatible Chat Completions.
#[derive(Debug)]
pub struct OpenAiProvider {
    model: String,
    url: String,
    headers: HeaderMap,
    http: HttpClient,
}

impl OpenAiProvider {
    /// A provider for `settings` (base URL with `/v1`, API key, timeout, retries).
    pub fn new(settings: &ProviderSettings) -> Result<Self, LlmError> {
        let mut headers = HeaderMap::new();
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {}", settings.api_key)).map_err(|_| {
                LlmError::InvalidConfig {
                    reason: "OPENAI_API_KEY holds characters not allowed in an HTTP header".into(),
                }
            })?;
        auth.set_sensitive(true);
        headers.insert(AUTHORIZATION, auth);
        Ok(Self {
            model: settings.model.clone(),
            url: format!(
                "{}/chat/completions",
                settings.base_url.trim_end_matches('/')
            ),
            headers,
            http: HttpClient::new(settings.timeout, settings.retry, settings.max_wait)?,
        })
    }
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        "openai"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete(
        &mut self,
        req: &Request,
        on_event: &mut dyn FnMut(&StreamEvent),
        cancel: &CancelToken,
    ) -> Result<Response, LlmError> {
        let call = Call::json(
            &self.url,
            &self.headers,
            &wire::request_body(req),
            req.stream,
        );
        self.http.execute(&call, &OpenAiWire, on_event, cancel)
    }
}
