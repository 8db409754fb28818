//! The `tool-guard` sample judges the path a tool would open, not the raw string: `./x`,
//! `a/../x` and an absolute path inside the workspace are the same file as `x`, and a deny
//! glob must catch every spelling. Through the real binary, with the built-in `read_file` and
//! `write_file`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry as entry, stderr, stdout};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

#[test]
fn every_spelling_of_a_denied_path_is_denied() {
    let env = TestEnv::new();
    env.write("secret.txt", "the secret\n");
    env.write("a/notes.txt", "plain notes\n");
    env.write("Cargo.lock", "locked\n");
    env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}{}",
        entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "read_file:secret*,write_file:*.lock")]
        ),
    ));
    let absolute = env.workspace().join("secret.txt").display().to_string();
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            ("c1", "read_file", json!({"path": "secret.txt"})),
            ("c2", "read_file", json!({"path": "./secret.txt"})),
            ("c3", "read_file", json!({"path": absolute})),
            ("c4", "read_file", json!({"path": "a/../secret.txt"})),
            ("c5", "read_file", json!({"path": ".//a/./../SECRET.txt"})),
            (
                "c6",
                "write_file",
                json!({"path": "./Cargo.lock", "content": "x"}),
            ),
            ("c7", "read_file", json!({"path": "./a/notes.txt"})),
        ],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    // Its only write was denied: exit 4.
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = value["session"].as_str().unwrap();

    let export = env.run(&["session", "export", session]);
    let history: Value = serde_json::from_str(&stdout(&export)).unwrap();
    let results: Vec<(String, bool)> = history
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "tool")
        .map(|i| {
            (
                i["text"].as_str().unwrap_or("").to_owned(),
                i["is_error"] == true,
            )
        })
        .collect();
    assert_eq!(results.len(), 7, "{results:?}");
    for (i, (text, is_error)) in results.iter().take(6).enumerate() {
        assert!(*is_error, "call {i}: {text}");
        assert!(
            text.starts_with("tool call denied by plugin:guard: "),
            "call {i}: {text}"
        );
        assert!(!text.contains("the secret"), "call {i}: {text}");
    }
    assert!(results[5].0.contains("write_file:*.lock"), "{results:?}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("Cargo.lock")).unwrap(),
        "locked\n"
    );
    assert!(!results[6].1, "{results:?}");
    assert!(results[6].0.contains("plain notes"), "{results:?}");
}
