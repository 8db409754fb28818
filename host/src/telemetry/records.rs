//! One log record per audit event, and the counters the events feed. Generic over the event
//! kinds: an event is flattened from its JSON form, so a new kind is exported as it is.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::SystemTime;

use opentelemetry::KeyValue;
use opentelemetry::logs::{AnyValue, LogRecord, Logger, Severity};
use opentelemetry::metrics::{Counter, Histogram, Meter};
use opentelemetry_sdk::logs::SdkLogger;
use serde_json::Value;

use super::export::Stats;
use crate::store::AuditEvent;

/// The name of every exported audit record; its kind is `warden.event`.
pub(crate) const EVENT_NAME: &str = "warden.audit";

/// Keys written whole (under a GenAI semantic-convention name where one exists); any other
/// key `a.b` of an event becomes `warden.a.b`.
pub(crate) fn attribute_name(path: &str) -> Cow<'static, str> {
    Cow::Borrowed(match path {
        "type" => "warden.event",
        "provider" => "gen_ai.provider.name",
        "model" => "gen_ai.request.model",
        "usage.input_tokens" => "gen_ai.usage.input_tokens",
        "usage.output_tokens" => "gen_ai.usage.output_tokens",
        "tool" => "gen_ai.tool.name",
        "call_id" => "gen_ai.tool.call.id",
        // Joined, not `format!`ted: formatting here was a tenth of export's work on a record.
        other => return Cow::Owned(["warden.", other].concat()),
    })
}

/// Keys that may hold prompt or file text: left out unless prompts are included.
const TEXT_KEYS: &[&str] = &["arguments"];

/// Flattens `value` into `(attribute, value)` pairs: objects by dotted path, arrays of scalars
/// as lists.
pub(crate) fn flatten(
    value: &Value,
    include_text: bool,
    out: &mut Vec<(Cow<'static, str>, AnyValue)>,
) {
    fn walk(
        value: &Value,
        path: &mut String,
        include_text: bool,
        out: &mut Vec<(Cow<'static, str>, AnyValue)>,
    ) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    if !include_text && TEXT_KEYS.contains(&key.as_str()) {
                        continue;
                    }
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                    walk(inner, path, include_text, out);
                    path.truncate(len);
                }
            }
            Value::Null => {}
            Value::Array(seen) if path == "seen_by" => digests(seen, out),
            scalar_or_list => {
                if let Some(any) = any_value(scalar_or_list) {
                    out.push((attribute_name(path), any));
                }
            }
        }
    }
    walk(value, &mut String::new(), include_text, out);
}

/// A tool call's `seen_by` as two lists of sha256: `warden.plugin.digests` (the enforcing
/// interceptors) and `warden.plugin.shadow_digests` (those in `shadow` mode).
fn digests(seen: &[Value], out: &mut Vec<(Cow<'static, str>, AnyValue)>) {
    let mut enforcing = Vec::new();
    let mut shadow = Vec::new();
    for plugin in seen {
        let Some(sha256) = plugin.get("sha256").and_then(Value::as_str) else {
            continue;
        };
        let digest = AnyValue::String(sha256.to_owned().into());
        if plugin.get("shadow").and_then(Value::as_bool) == Some(true) {
            shadow.push(digest);
        } else {
            enforcing.push(digest);
        }
    }
    for (name, list) in [
        ("warden.plugin.digests", enforcing),
        ("warden.plugin.shadow_digests", shadow),
    ] {
        if !list.is_empty() {
            out.push((Cow::Borrowed(name), AnyValue::ListAny(Box::new(list))));
        }
    }
}

fn any_value(value: &Value) -> Option<AnyValue> {
    Some(match value {
        Value::Bool(b) => AnyValue::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => AnyValue::Int(i),
            None => AnyValue::Double(n.as_f64()?),
        },
        Value::String(s) => AnyValue::String(s.clone().into()),
        Value::Array(items) => AnyValue::ListAny(Box::new(
            items
                .iter()
                .map(|item| match item {
                    Value::String(s) => AnyValue::String(s.clone().into()),
                    other => any_value(other)
                        .unwrap_or_else(|| AnyValue::String(other.to_string().into())),
                })
                .collect(),
        )),
        Value::Object(_) => AnyValue::String(value.to_string().into()),
        Value::Null => return None,
    })
}

/// The counters audit events feed.
pub(crate) struct Meters {
    decisions: Counter<u64>,
    tokens: Histogram<u64>,
    refusals: Counter<u64>,
}

impl Meters {
    pub fn new(meter: &Meter) -> Self {
        Self {
            decisions: meter
                .u64_counter("warden.tool.decisions")
                .with_description("Tool calls by decision and by who decided")
                .build(),
            tokens: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Tokens of each model request, by kind")
                .build(),
            refusals: meter
                .u64_counter("warden.sandbox.refusals")
                .with_description("Requests the sandbox refused")
                .build(),
        }
    }

    fn observe(&self, kind: &str, event: &Value) {
        let text = |key: &str| event.get(key).and_then(Value::as_str).unwrap_or("");
        match kind {
            "tool_call" => {
                let by = text("by");
                let source = by.split_once(':').map_or(by, |(source, _)| source);
                self.decisions.add(
                    1,
                    &[
                        KeyValue::new("warden.decision", text("decision").to_owned()),
                        KeyValue::new("warden.source", source.to_owned()),
                        KeyValue::new("gen_ai.tool.name", text("tool").to_owned()),
                    ],
                );
                let refused = event
                    .pointer("/http/refused")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                if refused > 0 {
                    self.refusals
                        .add(refused, &[KeyValue::new("warden.refusal", "http")]);
                }
            }
            "model_outcome" => {
                let Some(usage) = event.get("usage") else {
                    return;
                };
                for (field, name) in [
                    ("input_tokens", "input"),
                    ("output_tokens", "output"),
                    ("cache_read_tokens", "cache_read"),
                    ("cache_write_tokens", "cache_write"),
                ] {
                    if let Some(n) = usage.get(field).and_then(Value::as_u64) {
                        self.tokens
                            .record(n, &[KeyValue::new("gen_ai.token.type", name)]);
                    }
                }
            }
            other if other.contains("sandbox") => {
                self.refusals
                    .add(1, &[KeyValue::new("warden.refusal", other.to_owned())]);
            }
            _ => {}
        }
    }
}

/// What turns audit events into log records and feeds the counters, on the export thread.
pub(crate) struct Tap {
    pub logger: SdkLogger,
    pub meters: Meters,
    pub stats: Arc<Stats>,
    pub include_prompts: bool,
}

impl Tap {
    /// One log record per event (each counted as handed over already), carrying the `seq` and
    /// `hash` of its record in the audit log (`links`, by index) so that what was exported can
    /// be matched against the log and its chain.
    pub(crate) fn emit(
        &self,
        session: &str,
        ts: SystemTime,
        events: &[AuditEvent],
        links: &[crate::store::ChainHead],
    ) {
        let mut attributes = Vec::new();
        for (i, event) in events.iter().enumerate() {
            let value = match serde_json::to_value(event) {
                Ok(value) => value,
                // Counted as emitted and never sent: reported as lost.
                Err(_) => continue,
            };
            let kind = value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            self.meters.observe(kind, &value);
            let mut record = self.logger.create_log_record();
            record.set_event_name(EVENT_NAME);
            record.set_timestamp(ts);
            record.set_observed_timestamp(SystemTime::now());
            record.set_severity_number(Severity::Info);
            record.set_severity_text("INFO");
            record.set_body(AnyValue::String(kind.to_owned().into()));
            attributes.clear();
            flatten(&value, self.include_prompts, &mut attributes);
            record.add_attribute("gen_ai.conversation.id", session.to_owned());
            if let Some(link) = links.get(i) {
                record.add_attribute(
                    "warden.audit.seq",
                    i64::try_from(link.seq).unwrap_or(i64::MAX),
                );
                record.add_attribute("warden.audit.hash", link.hash.clone());
            }
            record.add_attributes(attributes.drain(..));
            self.logger.emit(record);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn names(value: Value, include_text: bool) -> Vec<String> {
        let mut out = Vec::new();
        flatten(&value, include_text, &mut out);
        out.into_iter().map(|(k, _)| k.into_owned()).collect()
    }

    #[test]
    fn known_keys_take_their_convention_names_and_others_are_prefixed() {
        let value = serde_json::json!({
            "type": "tool_call", "tool": "shell", "call_id": "c1",
            "grants": {"fs": "none", "allowed_hosts": ["a", "b"]},
            "usage": {"input_tokens": 3}, "reason": null,
        });
        let got = names(value, false);
        for want in [
            "warden.event",
            "gen_ai.tool.name",
            "gen_ai.tool.call.id",
            "warden.grants.fs",
            "warden.grants.allowed_hosts",
            "gen_ai.usage.input_tokens",
        ] {
            assert!(got.iter().any(|g| g == want), "{want} missing from {got:?}");
        }
        assert!(!got.iter().any(|g| g == "warden.reason"), "{got:?}");
    }

    #[test]
    fn the_plugins_that_saw_a_call_become_two_lists_of_digests() {
        let value = serde_json::json!({"seen_by": [
            {"plugin": "a", "sha256": "aa"},
            {"plugin": "b", "sha256": "bb"},
            {"plugin": "c", "sha256": "cc", "shadow": true},
        ]});
        let mut out = Vec::new();
        flatten(&value, false, &mut out);
        let list = |name: &str| -> Vec<String> {
            let Some((_, AnyValue::ListAny(items))) = out.iter().find(|(k, _)| k == name) else {
                panic!("{name} missing from {out:?}");
            };
            items
                .iter()
                .map(|i| match i {
                    AnyValue::String(s) => s.to_string(),
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        assert_eq!(list("warden.plugin.digests"), ["aa", "bb"]);
        assert_eq!(list("warden.plugin.shadow_digests"), ["cc"]);
        assert_eq!(out.len(), 2, "{out:?}");
    }

    #[test]
    fn argument_text_is_left_out_unless_asked_for() {
        let value = serde_json::json!({"input": {"arguments": {"content": "secret"}}});
        assert!(names(value.clone(), false).is_empty());
        assert_eq!(names(value, true), ["warden.input.arguments.content"]);
    }
}
