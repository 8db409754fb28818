//! `warden plugin check` on good and bad components, through the real binary.

use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

#[test]
fn check_reports_world_version_digest_and_imports() {
    let env = TestEnv::new();
    let path = fixtures::keyword_context();
    let out = env.run(&["plugin", "check", "--json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["world"], "interceptor");
    assert_eq!(json["api_version"], "0.3.0");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(json["sha256"], warden::plugin::sha256_hex(&bytes));
    let imports: Vec<&str> = json["imports"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(imports.contains(&"warden:plugin/host@0.3.0"), "{imports:?}");
    assert!(
        imports.contains(&"warden:plugin/prompts@0.3.0"),
        "{imports:?}"
    );
    assert!(
        imports
            .iter()
            .all(|i| i.starts_with("wasi:") || i.starts_with("warden:plugin/"))
    );
    assert_eq!(
        json["exports"],
        serde_json::json!(["warden:plugin/intercept@0.3.0"])
    );

    for (path, world) in [
        (fixtures::event_counter(), "hook"),
        (fixtures::file_ref(), "resolver"),
    ] {
        let out = env.run(&["plugin", "check", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0));
        assert!(
            stdout(&out).contains(&format!("world:       {world}")),
            "{}",
            stdout(&out)
        );
    }
}

/// Each bad input exits 2 with exactly one line on stderr naming the file and the reason.
#[test]
fn check_refuses_bad_components_with_one_line() {
    let env = TestEnv::new();
    let garbage = env.write("garbage.wasm", b"this is not wasm at all");
    let core = env.write("core.wasm", b"\0asm\x01\0\0\0");
    let empty = env.write("empty.wasm", b"");
    let truncated = {
        let mut bytes = std::fs::read(fixtures::keyword_context()).unwrap();
        bytes.truncate(bytes.len() / 2);
        env.write("truncated.wasm", bytes)
    };
    let cases = [
        (garbage, "not a WebAssembly binary"),
        (core, "core WebAssembly module"),
        (empty, "not a WebAssembly binary"),
        (truncated, "invalid component"),
        (
            fixtures::future_version(),
            "this host supports warden:plugin@0.1.0, warden:plugin@0.2.0, warden:plugin@0.3.0",
        ),
        (fixtures::other_world(), "exports no warden world"),
        (env.workspace().join("missing.wasm"), "cannot read"),
    ];
    for (path, reason) in cases {
        let out = env.run(&["plugin", "check", path.to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", path.display());
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "one line for {}: {err}",
            path.display()
        );
        assert!(
            err.contains(reason),
            "{}: expected {reason:?} in {err}",
            path.display()
        );
        assert!(
            err.contains(path.file_name().unwrap().to_str().unwrap()),
            "names the file: {err}"
        );
        assert!(stdout(&out).is_empty());
    }
}
