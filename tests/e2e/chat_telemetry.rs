//! `warden chat` exporting telemetry across session switches: after `/new`, the new session's
//! turns are in the new session's own trace (its id derived from the session id, the turn's
//! parent the session's root), not in the first session's; after `/resume`, in the resumed
//! one's.

use serde_json::{Value, json};
use sha2::Digest as _;

use crate::chat::{Terminal, skip};
use crate::support::TestEnv;
use crate::telemetry::{Collector, attr};

#[test]
fn after_new_or_resume_the_chat_exports_each_sessions_turns_in_its_own_trace() {
    let test = "after_new_or_resume_the_chat_exports_each_sessions_turns_in_its_own_trace";
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let Some(collector) = Collector::start(test, &env, "ok") else {
        return;
    };
    env.user_config(&format!(
        "[telemetry]\nendpoint = \"{}\"\n",
        collector.endpoint()
    ));
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");
    term.type_text("first question");
    term.press("Enter");
    term.wait_for_after("first question", "warden ›");
    term.type_text("/new");
    term.press("Enter");
    let screen = term.wait_for("the previous one is");
    let line = screen
        .lines()
        .find(|l| l.contains("the previous one is"))
        .unwrap()
        .trim()
        .to_owned();
    let (second, first) = line
        .strip_prefix("new session ")
        .and_then(|rest| rest.split_once(" (the previous one is "))
        .map(|(new, old)| (new.to_owned(), old.trim_end_matches(')').to_owned()))
        .unwrap_or_else(|| panic!("{line}"));
    assert_ne!(first, second);
    term.type_text("second question");
    term.press("Enter");
    term.wait_for_after("second question", "warden ›");
    // And back, with `/resume`: the first session's trace again.
    term.type_text(&format!("/resume {first}"));
    term.press("Enter");
    term.wait_for("resumed session");
    term.type_text("third question");
    term.press("Enter");
    term.wait_for_after("third question", "warden ›");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);

    let spans: Vec<Value> = collector
        .requests()
        .iter()
        .filter(|r| r["path"] == "/v1/traces")
        .flat_map(|r| {
            r["body"]["resourceSpans"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|rs| rs["scopeSpans"].as_array().cloned().unwrap_or_default())
        .flat_map(|ss| ss["spans"].as_array().cloned().unwrap_or_default())
        .collect();
    let mut turns: Vec<&Value> = spans.iter().filter(|s| s["name"] == "turn").collect();
    let started = |span: &Value| -> u128 {
        span["startTimeUnixNano"]
            .as_str()
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("{span}"))
    };
    turns.sort_by_key(|span| started(span));
    assert_eq!(turns.len(), 3, "{spans:#?}");
    for (turn, session) in turns.iter().zip([&first, &second, &first]) {
        assert_eq!(attr(turn, "session"), json!(session), "{turn}");
        let digest = sha2::Sha256::digest(session.as_bytes());
        assert_eq!(
            turn["traceId"],
            hex::encode(&digest[..16]),
            "the turn of session {session} is not in its session's trace: {turn}"
        );
        assert_eq!(turn["parentSpanId"], hex::encode(&digest[16..24]), "{turn}");
    }
}
