//! The Anthropic Messages API (`POST {ANTHROPIC_BASE_URL}/v1/messages`), streamed or not.
//!
//! - [`wire`]: history → request body (roles, reminders, tool blocks, cache breakpoints).
//! - `decode`: streamed events and whole bodies → [`Response`].

mod decode;
pub mod wire;

use reqwest::header::{HeaderMap, HeaderValue};

use super::http::{Call, HttpClient, WireFormat};
use super::{CancelToken, LlmError, Provider, ProviderSettings, Request, Response};
use crate::domain::StreamEvent;

pub(crate) use decode::AnthropicStream;

/// Base URL when `ANTHROPIC_BASE_URL` is unset (without `/v1`).
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// Model used when the config names none.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// The Anthropic wire format, for the transport.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AnthropicWire;

impl WireFormat for AnthropicWire {
    type Stream = AnthropicStream;

    fn provider(&self) -> &'static str {
        "anthropic"
    }

    fn stream_decoder(&self) -> AnthropicStream {
        AnthropicStream::default()
    }

    fn decode_body(&self, body: &[u8]) -> Result<Response, LlmError> {
        decode::decode_body(body)
    }
}

/// A provider speaking the Anthropic Messages API.
#[derive(Debug)]
pub struct AnthropicProvider {
    model: String,
    url: String,
    headers: HeaderMap,
    http: HttpClient,
}

impl AnthropicProvider {
    /// A provider for `settings` (base URL without `/v1`, API key, timeout, retries).
    pub fn new(settings: &ProviderSettings) -> Result<Self, LlmError> {
        let mut headers = HeaderMap::new();
        let key =
            HeaderValue::from_str(&settings.api_key).map_err(|_| LlmError::InvalidConfig {
                reason: "ANTHROPIC_API_KEY holds characters not allowed in an HTTP header".into(),
            })?;
        let mut key = key;
        key.set_sensitive(true);
        headers.insert("x-api-key", key);
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(wire::API_VERSION),
        );
        Ok(Self {
            model: settings.model.clone(),
            url: format!("{}/v1/messages", settings.base_url.trim_end_matches('/')),
            headers,
            http: HttpClient::new(settings.timeout, settings.retry, settings.max_wait)?,
        })
    }
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        "anthropic"
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
        self.http.execute(&call, &AnthropicWire, on_event, cancel)
    }
}
