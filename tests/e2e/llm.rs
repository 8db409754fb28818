//! Model providers end to end: `warden::setup::provider::from_config` against the mock model server over
//! real HTTP on loopback, for both wire formats.
//!
//! - `turns`: what is sent (whole requests compared with snapshots) and what comes back.
//! - `faults`: retries, errors, timeouts, broken streams, cancellation.
//! - `cli`: the real `warden run` against the mock server.

mod cli;
mod faults;
mod turns;

use serde_json::{Value, json};
use warden::config::ModelConfig;
use warden::domain::ProviderKind;
use warden::domain::{Item, StreamEvent, ToolSpec};
use warden::llm::{CancelToken, LlmError, Provider, ProviderSettings, Request, Response};
use warden_tests::mock_server::{MockServer, Recorded, Reply};

/// Both HTTP providers.
pub const KINDS: [ProviderKind; 2] = [ProviderKind::Anthropic, ProviderKind::Openai];

/// `anthropic` or `openai`.
pub fn kind_name(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "anthropic",
        ProviderKind::Openai => "openai",
        ProviderKind::Echo => "echo",
    }
}

/// Config as a test uses it: millisecond retry waits, two retries.
pub fn model_config(kind: ProviderKind) -> ModelConfig {
    ModelConfig {
        provider: kind,
        name: Some("test-model".into()),
        max_retries: 2,
        retry_base_ms: 1,
        retry_max_ms: 4,
        ..ModelConfig::default()
    }
}

/// The environment pointing both providers at `server`.
pub fn env(server: &MockServer) -> impl Fn(&str) -> Option<String> + use<> {
    let (url, openai_url) = (server.url(), server.openai_url());
    move |name: &str| match name {
        "ANTHROPIC_API_KEY" => Some("sk-ant-test".into()),
        "ANTHROPIC_BASE_URL" => Some(url.clone()),
        "OPENAI_API_KEY" => Some("sk-openai-test".into()),
        "OPENAI_BASE_URL" => Some(openai_url.clone()),
        _ => None,
    }
}

/// A provider of `kind` talking to `server`, through `from_config`.
pub fn provider(kind: ProviderKind, server: &MockServer) -> Box<dyn Provider> {
    warden::setup::provider::from_config(&model_config(kind), &env(server))
        .unwrap_or_else(|e| panic!("provider: {e}"))
}

/// Settings of a provider of `kind` talking to `server`, to adjust before building.
pub fn settings(kind: ProviderKind, server: &MockServer) -> ProviderSettings {
    warden::setup::provider::settings(&model_config(kind), &env(server))
        .unwrap_or_else(|e| panic!("settings: {e}"))
}

/// The file tools offered in every request.
pub fn tools() -> Vec<ToolSpec> {
    let path =
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    vec![
        ToolSpec {
            name: "read_file".into(),
            description: "Read a file of the workspace.".into(),
            input_schema: path.clone(),
        },
        ToolSpec {
            name: "list_files".into(),
            description: "List a directory of the workspace.".into(),
            input_schema: path,
        },
    ]
}

/// A request for `items`.
pub fn request(items: Vec<Item>, stream: bool) -> Request {
    Request {
        model: "test-model".into(),
        system: Some("You are a careful assistant.".into()),
        items,
        tools: tools(),
        max_tokens: 512,
        stream,
    }
}

/// Runs one request, collecting the events.
/// The countdown notices ([`StreamEvent::Waiting`], one per attempt) are left out; `faults`
/// checks them on their own.
pub fn run(p: &mut dyn Provider, req: &Request) -> (Result<Response, LlmError>, Vec<StreamEvent>) {
    let mut events = Vec::new();
    let r = p.complete(
        req,
        &mut |e| {
            if !matches!(e, StreamEvent::Waiting { .. }) {
                events.push(e.clone());
            }
        },
        &CancelToken::new(),
    );
    (r, events)
}

/// A recorded request as compared in snapshots: method, path, the headers that matter, body.
pub fn recorded_json(r: &Recorded) -> Value {
    let headers: serde_json::Map<String, Value> = [
        "accept",
        "anthropic-version",
        "authorization",
        "content-type",
        "x-api-key",
    ]
    .iter()
    .filter_map(|h| r.header(h).map(|v| ((*h).to_owned(), json!(v))))
    .collect();
    json!({"method": r.method, "path": r.path, "headers": headers, "body": r.body})
}

/// A provider-shaped HTTP error: Anthropic's `{"type":"error","error":{…}}` or OpenAI's
/// `{"error":{message,type,code}}`.
pub fn api_error(kind: ProviderKind, status: u16, error_type: &str, message: &str) -> Reply {
    match kind {
        ProviderKind::Openai => Reply::Error {
            status,
            headers: Vec::new(),
            body: json!({"error": {"message": message, "type": error_type, "param": null, "code": null}})
                .to_string(),
        },
        _ => Reply::error(status, error_type, message),
    }
}

/// Removes every `cache_control` key.
pub fn strip_cache_control(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.remove("cache_control");
            map.values_mut().for_each(strip_cache_control);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_cache_control),
        _ => {}
    }
}
