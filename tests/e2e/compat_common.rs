//! What the compatibility tests of each frozen WIT version share: the frozen builds under
//! `tests/fixtures/<version>/`, loading them, and one whole turn through the binary.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use warden::domain::{Item, SubmittedPrompt};
use warden::plugin::{InterceptorPlugin, Limits, PluginEngine};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

/// The frozen build `file` of `version` (`v0.1.0`, `v0.2.0`).
pub(crate) fn frozen(version: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(version)
        .join(file)
}

/// `init` config from pairs.
fn config(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// A submitted prompt of one user item.
pub(crate) fn prompt(text: &str) -> SubmittedPrompt {
    SubmittedPrompt {
        session: "s".into(),
        text: text.into(),
        items: vec![Item::user(text)],
    }
}

/// The frozen interceptor `file` of `version`, loaded with `pairs`.
pub(crate) fn interceptor(
    engine: &PluginEngine,
    version: &str,
    file: &str,
    pairs: &[(&str, &str)],
) -> InterceptorPlugin {
    InterceptorPlugin::load(
        engine,
        file,
        &frozen(version, file),
        None,
        Limits::default(),
        config(pairs),
    )
    .unwrap()
}

/// The frozen resolver, hook and todo-reminder of `version` in one run through the binary: an `@` ref, the
/// model's `read_file` and `list_files`, a reminder item, and the hook's count at turn end.
pub(crate) fn frozen_resolver_hook_and_reminder_serve_a_whole_turn(version: &str) {
    let env = TestEnv::new();
    env.write("notes/todo.md", "1. write tests\n2. ship\n");
    env.write("a.txt", "alpha\n");
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\n\n\
         [fileref]\nresolver = {:?}\n\n\
         [[plugins]]\nname = \"counter\"\nkind = \"hook\"\npath = {:?}\n\n\
         [[plugins]]\nname = \"todo\"\nkind = \"interceptor\"\npath = {:?}\n[plugins.config]\ntasks = \"ship it\"\n",
        frozen(version, "file_ref.wasm"),
        frozen(version, "event_counter.wasm"),
        frozen(version, "todo_reminder.wasm"),
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "Let me look.",
        &[
            ("call_1", "read_file", json!({"path": "notes/todo.md"})),
            ("call_2", "list_files", json!({"path": "notes"})),
        ],
    ));
    server.push(Reply::text("Done."));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .env("WARDEN_LOG", "info")
        .args(["run", "--json", "look at @a.txt"]);
    let out = output_within(cmd, HANG_LIMIT);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["answer"], "Done.");

    let first = &server.requests()[0].body["messages"];
    assert!(
        first.to_string().contains("[File: a.txt]\\nalpha\\n"),
        "{first}"
    );
    assert!(first.to_string().contains("ship it"), "{first}");
    let second = server.requests()[1].body["messages"].clone();
    let tools: Vec<&Value> = second
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tools.len(), 2, "{second}");
    assert!(
        tools[0]["content"]
            .as_str()
            .unwrap()
            .contains("1. write tests")
    );
    assert!(tools[1]["content"].as_str().unwrap().contains("todo.md"));
    assert!(err.contains("event counts:"), "{err}");
    assert!(err.contains("turn-ended=1"), "{err}");
}
