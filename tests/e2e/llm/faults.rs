//! Faults: every failure a provider must retry, report or stop on.

use std::time::Duration;

use pretty_assertions::assert_eq;
use warden::domain::ProviderKind;
use warden::domain::{Item, StreamEvent};
use warden::llm::{CancelToken, LlmError};
use warden_tests::mock_server::{MockServer, Reply};

use super::{KINDS, api_error, env, kind_name, model_config, provider, request, run, settings};

fn server() -> MockServer {
    MockServer::start().unwrap_or_else(|e| panic!("{e}"))
}

fn ask() -> warden::llm::Request {
    request(vec![Item::user("Hello?")], true)
}

fn retrying(events: &[StreamEvent]) -> Vec<(u32, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying {
                attempt, reason, ..
            } => Some((*attempt, reason.clone())),
            _ => None,
        })
        .collect()
}

/// Every request the server saw had the same body.
fn assert_same_bodies(server: &MockServer, count: usize) {
    let reqs = server.requests();
    assert_eq!(reqs.len(), count);
    assert!(reqs.windows(2).all(|w| w[0].body == w[1].body));
}

#[test]
fn rate_limit_with_retry_after_is_honoured_then_succeeds() {
    for kind in KINDS {
        let s = server();
        s.push(
            api_error(kind, 429, "rate_limit_error", "slow down")
                .with_header("retry-after-ms", "3"),
        );
        s.push(Reply::text("ok"));
        let (r, events) = run(provider(kind, &s).as_mut(), &ask());
        assert_eq!(r.ok().map(|r| r.text), Some("ok".into()));
        let name = kind_name(kind);
        let type_suffix = " (rate_limit_error)";
        assert_eq!(
            events[0],
            StreamEvent::Retrying {
                attempt: 1,
                delay: Duration::from_millis(3),
                reason: format!("{name}: HTTP 429: slow down{type_suffix}"),
            }
        );
        assert_same_bodies(&s, 2);
    }
}

#[test]
fn server_error_then_success() {
    for kind in KINDS {
        let s = server();
        s.push(api_error(kind, 500, "api_error", "internal"));
        s.push(Reply::text("ok"));
        let (r, events) = run(provider(kind, &s).as_mut(), &ask());
        assert_eq!(r.ok().map(|r| r.text), Some("ok".into()));
        assert_eq!(
            retrying(&events),
            vec![(
                1,
                format!("{}: HTTP 500: internal (api_error)", kind_name(kind))
            )]
        );
        assert_same_bodies(&s, 2);
    }
}

#[test]
fn retries_spent_give_a_clear_error() {
    for kind in KINDS {
        let s = server();
        for _ in 0..3 {
            s.push(api_error(kind, 503, "overloaded_error", "Overloaded"));
        }
        let (r, events) = run(provider(kind, &s).as_mut(), &ask());
        let err = r.err().map(|e| (e.is_retryable(), e.to_string()));
        assert_eq!(
            err,
            Some((
                false,
                format!(
                    "gave up after 3 attempts: {}: HTTP 503: Overloaded (overloaded_error)",
                    kind_name(kind)
                )
            ))
        );
        assert_eq!(retrying(&events).len(), 2);
        assert_same_bodies(&s, 3);
    }
}

#[test]
fn connection_reset_is_retried() {
    for kind in KINDS {
        let s = server();
        s.push(Reply::Reset);
        s.push(Reply::text("ok"));
        let (r, events) = run(provider(kind, &s).as_mut(), &ask());
        assert_eq!(r.ok().map(|r| r.text), Some("ok".into()));
        let reasons = retrying(&events);
        assert_eq!(reasons.len(), 1);
        let prefix = format!("{}: connection failed", kind_name(kind));
        assert!(reasons[0].1.starts_with(&prefix), "{}", reasons[0].1);
    }
}

#[test]
fn timeout_is_retried() {
    for kind in KINDS {
        let s = server();
        s.push(Reply::Hang);
        s.push(Reply::delay(10_000, Reply::text("too late")));
        s.push(Reply::text("ok"));
        let mut settings = settings(kind, &s);
        // Long enough for a loaded machine to answer the last reply in time.
        settings.timeout = Duration::from_millis(250);
        let mut p = settings.build().unwrap_or_else(|e| panic!("{e}"));
        let (r, events) = run(p.as_mut(), &ask());
        assert_eq!(r.ok().map(|r| r.text), Some("ok".into()));
        let expected = format!("{}: no response within 0.25s", kind_name(kind));
        assert_eq!(
            retrying(&events),
            vec![(1, expected.clone()), (2, expected)]
        );
    }
}

#[test]
fn stream_cut_before_any_content_is_retried() {
    for kind in KINDS {
        let s = server();
        s.push(Reply::cut("Hello there", 1));
        s.push(Reply::text("Hello there"));
        let (r, events) = run(provider(kind, &s).as_mut(), &ask());
        assert_eq!(r.ok().map(|r| r.text), Some("Hello there".into()));
        let name = kind_name(kind);
        let reason = match kind {
            ProviderKind::Anthropic => format!(
                "{name}: stream ended early: the connection closed after 1 events without message_stop"
            ),
            _ => format!(
                "{name}: stream ended early: the connection closed after 1 events without finish_reason or [DONE]"
            ),
        };
        assert_eq!(retrying(&events), vec![(1, reason)]);
    }
}

/// Events of the mock stream up to and including the first text delta.
fn through_first_delta(kind: ProviderKind) -> usize {
    match kind {
        ProviderKind::Anthropic => 4,
        _ => 2,
    }
}

#[test]
fn stream_cut_after_content_is_an_error_not_a_response() {
    for kind in KINDS {
        let s = server();
        s.push(Reply::cut("Hello there friend", through_first_delta(kind)));
        s.push(Reply::text("never sent"));
        let (r, events) = run(provider(kind, &s).as_mut(), &ask());
        assert!(matches!(r, Err(LlmError::TruncatedStream { .. })), "{r:?}");
        assert_eq!(events, vec![StreamEvent::TextDelta("Hello ".into())]);
        assert_eq!(s.requests().len(), 1, "content was shown: no retry");
    }
}

#[test]
fn malformed_stream_names_what_was_wrong() {
    for kind in KINDS {
        let s = server();
        s.push(Reply::malformed("Hello there", through_first_delta(kind)));
        let (r, _) = run(provider(kind, &s).as_mut(), &ask());
        let msg = r.err().map(|e| e.to_string()).unwrap_or_default();
        let expected = match kind {
            ProviderKind::Anthropic => {
                "anthropic: malformed stream: data of the content_block_delta event is not a valid event: EOF while parsing"
            }
            _ => {
                "openai: malformed stream: chunk 3 is not a chat.completion.chunk: EOF while parsing"
            }
        };
        assert!(msg.starts_with(expected), "{msg}");
        assert_eq!(s.requests().len(), 1);
    }
}

#[test]
fn client_errors_show_the_providers_message_and_are_not_retried() {
    for kind in KINDS {
        for (status, error_type, message) in [
            (
                400,
                "invalid_request_error",
                "messages: text content blocks must be non-empty",
            ),
            (401, "authentication_error", "invalid x-api-key"),
        ] {
            let s = server();
            s.push(api_error(kind, status, error_type, message));
            s.push(Reply::text("never sent"));
            let (r, events) = run(provider(kind, &s).as_mut(), &ask());
            let err = r.err().map(|e| e.to_string());
            assert_eq!(
                err,
                Some(format!(
                    "{}: HTTP {status}: {message} ({error_type})",
                    kind_name(kind)
                ))
            );
            assert!(events.is_empty());
            assert_eq!(s.requests().len(), 1);
        }
    }
}

#[test]
fn cancel_mid_stream_returns_partial_text_as_an_error() {
    for kind in KINDS {
        let s = server();
        s.push(Reply::stall(
            "Hello there friend",
            through_first_delta(kind),
        ));
        let mut p = provider(kind, &s);
        let cancel = CancelToken::new();
        let mut events = Vec::new();
        let r = p.complete(
            &ask(),
            &mut |e| {
                if e.is_content() {
                    events.push(e.clone());
                    cancel.cancel();
                }
            },
            &cancel,
        );
        match r {
            Err(LlmError::Cancelled { partial_text }) => assert_eq!(partial_text, "Hello "),
            other => panic!(
                "{}: expected a cancellation, got {other:?}",
                kind_name(kind)
            ),
        }
        assert_eq!(events, vec![StreamEvent::TextDelta("Hello ".into())]);
    }
}

#[test]
fn missing_key_names_the_variable() {
    for (kind, var) in [
        (ProviderKind::Anthropic, "ANTHROPIC_API_KEY"),
        (ProviderKind::Openai, "OPENAI_API_KEY"),
    ] {
        let s = server();
        let full = env(&s);
        let without_key = |name: &str| if name == var { None } else { full(name) };
        let err = warden::setup::provider::from_config(&model_config(kind), &without_key).err();
        assert!(err.as_ref().is_some_and(LlmError::is_config_error));
        assert_eq!(
            err.map(|e| e.to_string()),
            Some(format!(
                "{var} is not set: export {var}=<your key> to use the {} provider",
                kind_name(kind)
            ))
        );
    }
}

#[test]
fn a_hung_server_spends_the_wait_budget_and_each_attempt_is_announced() {
    for kind in KINDS {
        let s = server();
        for _ in 0..5 {
            s.push(Reply::Hang);
        }
        let mut settings = settings(kind, &s);
        // The second attempt is cut by the budget, not by its own timeout.
        settings.timeout = Duration::from_millis(600);
        settings.max_wait = Duration::from_secs(1);
        let mut p = settings.build().unwrap_or_else(|e| panic!("{e}"));
        let mut waiting = Vec::new();
        let r = p.complete(
            &ask(),
            &mut |e| {
                if let StreamEvent::Waiting {
                    provider,
                    attempt,
                    attempts,
                    left,
                } = e
                {
                    assert!(*left <= Duration::from_secs(1));
                    waiting.push((*provider, *attempt, *attempts));
                }
            },
            &CancelToken::new(),
        );
        let err = r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err.contains("no answer within the wait budget of 1 s (`model.max_wait_s`)"),
            "{err}"
        );
        assert!(!waiting.is_empty());
        assert!(
            waiting
                .iter()
                .enumerate()
                .all(|(i, w)| *w == (kind_name(kind), i as u32 + 1, 3)),
            "{waiting:?}"
        );
    }
}
