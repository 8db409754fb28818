//! `warden plugin bench` on the sample plugins, through the real binary: the shape of what it
//! prints (call points, warm and fresh figures, start-up), not the figures themselves.

use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

fn positive(value: &serde_json::Value, what: &str) -> f64 {
    let n = value
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: {value:?}"));
    assert!(n > 0.0, "{what} = {n}");
    n
}

#[test]
fn bench_reports_every_call_point_and_start_up_as_json() {
    let env = TestEnv::new();
    let path = fixtures::keyword_context();
    let out = env.run(&[
        "plugin",
        "bench",
        "--json",
        "--config",
        "word=lorem",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["world"], "interceptor");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(json["sha256"], warden::plugin::sha256_hex(&bytes));
    let calls = json["calls"].as_array().unwrap();
    let points: Vec<&str> = calls.iter().map(|c| c["point"].as_str().unwrap()).collect();
    assert_eq!(
        points,
        [
            "on-prompt-submit",
            "pre-llm-request",
            "on-turn-end",
            "pre-tool-call",
            "post-tool-call",
            "compaction"
        ]
    );
    for call in calls {
        positive(&call["warm_ns"], "warm_ns");
        positive(&call["fresh_ns"], "fresh_ns");
    }
    positive(&json["startup"]["warm_cache_ns"], "warm_cache_ns");
    positive(&json["startup"]["cold_ns"], "cold_ns");
    // Each call is a turn of its own: the log budget of a turn is never spent, so nothing is
    // logged about it.
    assert!(
        !stderr(&out).contains("log budget spent"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bench_prints_a_table_for_a_hook_and_refuses_bad_input() {
    let env = TestEnv::new();
    let path = fixtures::event_counter();
    let out = env.run(&["plugin", "bench", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("world:    hook"), "{text}");
    assert!(text.contains("fresh instance + init + call"), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("on-event "))
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    for row in rows {
        let units = row
            .split_whitespace()
            .filter(|w| matches!(*w, "ns" | "µs" | "ms" | "s"))
            .count();
        assert_eq!(units, 2, "a warm and a fresh figure: {row}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("start-up: ") && l.contains("warm compiled-code cache")),
        "{text}"
    );

    // A missing config key is the plugin's refusal: a usage error, one line.
    let out = env.run(&[
        "plugin",
        "bench",
        fixtures::keyword_context().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("word"), "{}", stderr(&out));
    let garbage = env.write("garbage.wasm", b"not wasm");
    let out = env.run(&["plugin", "bench", garbage.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    let out = env.run(&[
        "plugin",
        "bench",
        "--config",
        "novalue",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}
