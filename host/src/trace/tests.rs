use std::collections::HashMap;
use std::sync::{Mutex, Once};
use std::thread::ThreadId;

use super::*;

/// Every batch handed over, by the thread that ended it (tests run on threads of their own).
static TAKEN: Mutex<Option<HashMap<ThreadId, Vec<Vec<Ended>>>>> = Mutex::new(None);

fn consume() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        set_consumer(Some(Box::new(|batch| {
            if let Ok(mut taken) = TAKEN.lock() {
                taken
                    .get_or_insert_with(HashMap::new)
                    .entry(std::thread::current().id())
                    .or_default()
                    .push(batch);
            }
        })));
    });
}

/// The batches this thread handed over so far.
fn taken() -> Vec<Vec<Ended>> {
    TAKEN
        .lock()
        .ok()
        .and_then(|mut taken| taken.as_mut()?.remove(&std::thread::current().id()))
        .unwrap_or_default()
}

#[test]
fn nested_spans_end_as_one_batch_with_parents_and_attributes() {
    consume();
    let _session = enter_session("s-1", None);
    {
        let turn = span("turn").with("session", "s-1");
        {
            let call = span("tool call").with("gen_ai.tool.name", "read_file");
            let _plugin = span("plugin call").with("point", Value::label("pre-tool-call"));
            call.set("n", 3u64);
            call.set("n", 4u64);
        }
        assert!(
            taken().is_empty(),
            "nothing is handed over while the turn is open"
        );
        turn.set("done", true);
    }
    let batches = taken();
    assert_eq!(batches.len(), 1);
    let names: Vec<&str> = batches[0].iter().map(|e| e.name).collect();
    assert_eq!(names, ["plugin call", "tool call", "turn"]);
    let (plugin, call, turn) = (&batches[0][0], &batches[0][1], &batches[0][2]);
    let root = session_root("s-1");
    assert_eq!(turn.context.trace, root.trace);
    assert_eq!(turn.parent, Some(root.span));
    assert!(turn.parent_is_remote);
    assert_eq!(turn.link, None);
    assert_eq!(call.parent, Some(turn.context.span));
    assert!(!call.parent_is_remote);
    assert_eq!(plugin.parent, Some(call.context.span));
    assert!([plugin, call].iter().all(|e| e.context.trace == root.trace));
    assert_eq!(call.get("n"), Some(&Value::Int(4)));
    assert_eq!(call.attributes.len(), 2, "a value set twice is kept once");
    assert_eq!(plugin.text("point"), Some("pre-tool-call"));
    assert_eq!(turn.get("done"), Some(&Value::Bool(true)));
    assert!(turn.start <= call.start && call.end <= turn.end);
    let ids: std::collections::HashSet<_> = batches[0].iter().map(|e| e.context.span).collect();
    assert_eq!(ids.len(), 3);
    assert!(!ids.contains(&[0u8; 8]));
}

#[test]
fn a_child_sessions_turn_links_to_its_parents_root_and_the_session_before_comes_back() {
    consume();
    let _outer = enter_session("parent", None);
    {
        let _child = enter_session("child", Some("parent"));
        let _turn = span("turn");
    }
    drop(span("turn"));
    let ended: Vec<Ended> = taken().into_iter().flatten().collect();
    assert_eq!(ended.len(), 2);
    assert_eq!(ended[0].context.trace, session_root("child").trace);
    assert_eq!(ended[0].link, Some(session_root("parent")));
    assert_eq!(ended[1].context.trace, session_root("parent").trace);
    assert_eq!(ended[1].link, None, "no link outside a child session");
}

#[test]
fn spans_ended_out_of_order_keep_their_own_parents() {
    consume();
    let outer = span("outer");
    let inner = span("inner");
    drop(outer);
    drop(inner);
    let ended: Vec<Ended> = taken().into_iter().flatten().collect();
    assert_eq!(ended.len(), 2);
    assert_eq!(ended[0].name, "outer");
    assert_eq!(ended[1].name, "inner");
    assert_eq!(ended[1].parent, Some(ended[0].context.span));
    assert_eq!(
        ended[0].parent, None,
        "no session entered: a trace of its own"
    );
    assert_ne!(ended[0].context.trace, [0u8; 16]);
}

#[test]
fn a_long_span_hands_over_what_ended_in_it_in_batches() {
    consume();
    let _turn = span("turn");
    for _ in 0..BATCH {
        drop(span("tool call"));
    }
    let batches = taken();
    assert_eq!(batches.len(), 1);
    assert_eq!(batches[0].len(), BATCH);
}

#[test]
fn numbers_too_large_for_an_attribute_become_text() {
    assert_eq!(Value::from(u64::MAX), Value::from(u64::MAX.to_string()));
    assert_eq!(Value::from(7usize), Value::Int(7));
}
