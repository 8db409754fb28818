//! The sample plugins the binary carries, through the real binary: `path = "builtin:NAME"`
//! loads and acts with no component file anywhere, a `sha256` pin is checked against the
//! embedded bytes, `plugin list --builtin` and `plugin check builtin:NAME` describe them, and
//! an unknown name is a configuration error naming the entry, its file and the known names.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry as entry, stderr, stdout};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// `plugin list --builtin --json`, by name.
fn builtins(env: &TestEnv) -> Vec<Value> {
    let out = env.run(&["plugin", "list", "--builtin", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str::<Value>(&stdout(&out))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn digest_of(list: &[Value], name: &str) -> String {
    list.iter()
        .find(|b| b["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {list:?}"))["sha256"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn builtin_samples_act_in_a_turn_with_no_file_on_disk() {
    let env = TestEnv::new();
    env.write("secret.txt", "the secret\n");
    let guard_pin = digest_of(&builtins(&env), "tool-guard");
    env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}{}{}",
        entry(
            "interceptor",
            "notes",
            Path::new("builtin:keyword-context"),
            "",
            &[("word", "ship"), ("context", "Ships sail at dawn.")]
        ),
        entry(
            "interceptor",
            "guard",
            Path::new("builtin:tool-guard"),
            &format!("sha256 = \"{guard_pin}\""),
            &[("deny", "read_file:secret*")]
        ),
    ));
    // Not a file next to the config, nor anywhere else.
    assert!(!env.workspace().join(".warden/builtin:tool-guard").exists());
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("c1", "read_file", json!({"path": "secret.txt"}))],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "ship the release"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["answer"], "done");

    let export = env.run(&["session", "export", value["session"].as_str().unwrap()]);
    let history: Value = serde_json::from_str(&stdout(&export)).unwrap();
    let items = history.as_array().unwrap();
    assert!(
        items.iter().any(|i| i["role"] == "system"
            && i["text"] == "Ships sail at dawn."
            && i["source"] == "plugin:notes"),
        "{history:#}"
    );
    let denied: Vec<&Value> = items.iter().filter(|i| i["role"] == "tool").collect();
    assert_eq!(denied.len(), 1, "{history:#}");
    assert_eq!(denied[0]["is_error"], true, "{history:#}");
    let text = denied[0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("tool call denied by plugin:guard: "),
        "{text}"
    );
    assert!(!text.contains("the secret"), "{text}");
}

#[test]
fn a_wrong_pin_on_a_builtin_is_refused() {
    let env = TestEnv::new();
    let wrong = "0".repeat(64);
    env.project_config(&entry(
        "hook",
        "counter",
        Path::new("builtin:event-counter"),
        &format!("sha256 = \"{wrong}\""),
        &[],
    ));
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("sha256 mismatch"), "{}", stderr(&out));
}

#[test]
fn an_unknown_builtin_names_the_entry_the_file_and_the_known_names() {
    let env = TestEnv::new();
    // The user layer: a project naming a component that does not exist cannot be trusted.
    let config = env.user_config(&entry(
        "interceptor",
        "mine",
        Path::new("builtin:nope"),
        "",
        &[],
    ));
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&config.display().to_string()), "{err}");
    assert!(err.contains("plugin `mine`"), "{err}");
    assert!(err.contains("builtin:nope"), "{err}");
    assert!(err.contains("builtin:keyword-context"), "{err}");
    assert!(err.contains("builtin:tool-guard"), "{err}");
    // Never read relative to the config file's directory.
    assert!(!err.contains("warden/builtin:"), "{err}");
}

#[test]
fn plugin_list_builtin_and_plugin_check_describe_the_carried_samples() {
    let env = TestEnv::new();
    let list = builtins(&env);
    let names: Vec<&str> = list.iter().map(|b| b["name"].as_str().unwrap()).collect();
    for (name, world) in [
        ("tool-guard", "interceptor"),
        ("keyword-context", "interceptor"),
        ("pattern-guard", "interceptor"),
        ("todo-reminder", "interceptor"),
        ("event-counter", "hook"),
        ("grep-tool", "tool"),
        ("edit-tool", "tool"),
        ("web-fetch", "tool"),
    ] {
        let row = list.iter().find(|b| b["name"] == name).unwrap();
        assert_eq!(row["world"], world, "{row}");
        assert_eq!(row["path"], format!("builtin:{name}"));
        assert_eq!(row["sha256"].as_str().unwrap().len(), 64, "{row}");
        assert!(row["size"].as_u64().unwrap() > 1000, "{row}");
        assert!(!row["description"].as_str().unwrap().is_empty(), "{row}");
        assert!(!row["api_version"].as_str().unwrap().is_empty(), "{row}");
    }
    assert_eq!(names.len(), 8, "{names:?}");

    let out = env.run(&["plugin", "list", "--builtin"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("builtin:edit-tool"), "{text}");
    assert!(text.contains("tool@"), "{text}");

    // `plugin check` reads the embedded bytes, and for a tool plugin asks for its tools.
    let out = env.run(&["plugin", "check", "--json", "builtin:grep-tool"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["world"], "tool");
    assert_eq!(value["sha256"], digest_of(&list, "grep-tool"));
    assert_eq!(value["tools"], json!(["search_text"]));
    let out = env.run(&["plugin", "check", "builtin:nope"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("builtin:pattern-guard"),
        "{}",
        stderr(&out)
    );

    // The configured plugins: a builtin entry keeps its path.
    env.user_config(&entry(
        "hook",
        "counter",
        Path::new("builtin:event-counter"),
        "",
        &[],
    ));
    let out = env.run(&["plugin", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value[0]["path"], "builtin:event-counter", "{value}");
}
