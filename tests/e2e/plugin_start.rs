//! Start-up with several plugins: they load side by side, yet the error reported is always the
//! first failing `[[plugins]]` entry in configuration order, as when they loaded one by one.

use warden_tests::fixtures;

use crate::support::{TestEnv, stderr};

fn entry(name: &str, kind: &str, path: &str, extra: &str) -> String {
    format!("[[plugins]]\nname = \"{name}\"\nkind = \"{kind}\"\npath = \"{path}\"\n{extra}")
}

#[test]
fn the_first_failing_entry_in_configuration_order_is_the_error() {
    // The user layer: a project declaring a missing component cannot be trusted.
    let env = TestEnv::new();
    let kw = fixtures::keyword_context();
    let kw = kw.to_str().unwrap();
    let counter = fixtures::event_counter();
    let counter = counter.to_str().unwrap();
    let good = entry(
        "good",
        "interceptor",
        kw,
        "[plugins.config]\nword = \"x\"\n",
    );
    let refused = entry("refusing", "interceptor", kw, "");
    let pinned = entry(
        "mispinned",
        "hook",
        counter,
        &format!("sha256 = \"{}\"\n", "0".repeat(64)),
    );
    let missing = entry("absent", "hook", "nowhere.wasm", "");

    let orders: [(&[&String], &str); 3] = [
        (&[&good, &refused, &pinned, &missing], "refusing"),
        (&[&good, &pinned, &refused, &missing], "mispinned"),
        (&[&missing, &refused, &pinned, &good], "absent"),
    ];
    for (entries, first) in orders {
        let text: String = entries
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        env.user_config(&text);
        let out = env.run(&["preview", "hi"]);
        assert_eq!(out.status.code(), Some(2), "{text}\n{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(first), "expected {first}: {err}");
        for other in ["refusing", "mispinned", "absent"] {
            if other != first {
                assert!(!err.contains(other), "only {first} is reported: {err}");
            }
        }
    }

    // All present and right: the start succeeds.
    let text = [good.as_str(), &entry("counter", "hook", counter, "")].join("\n");
    env.user_config(&text);
    let out = env.run(&["preview", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
