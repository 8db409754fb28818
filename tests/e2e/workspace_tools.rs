//! The built-in tools that write and search (`write_file`, `edit_file`, `grep`, `glob`)
//! through the real binary: a turn that writes, edits and searches, with every call audited;
//! and every path the rules refuse, refused on its real path (protected directories, deny
//! globs, symlinks, `..`, absolute paths elsewhere), with the files left as they were.

use std::os::unix::fs::symlink;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, audited_tools, output_within, stderr, stdout};

/// The model, and the mode under which writes run without asking (`run` has nobody to ask).
const OPENAI: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"auto-edit\"\n";

/// One turn in which the model makes `calls`, then answers; the exit code, the `--json`
/// summary, stderr, and the tool results the model was sent, by call id.
fn turn(
    env: &TestEnv,
    calls: &[(&str, &str, Value)],
) -> (
    Option<i32>,
    Value,
    String,
    Vec<(String, String)>,
    MockServer,
) {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("", calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    let value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    let results = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (out.status.code(), value, stderr(&out), results, server)
}

fn result<'a>(results: &'a [(String, String)], id: &str) -> &'a str {
    results
        .iter()
        .find(|(i, _)| i == id)
        .map(|(_, c)| c.as_str())
        .unwrap_or_else(|| panic!("no result for {id} in {results:?}"))
}

#[test]
fn the_model_writes_edits_and_searches_in_one_turn_and_every_call_is_audited() {
    let env = TestEnv::new();
    env.write("README.md", "# demo\n");
    env.project_config(OPENAI);
    let (code, value, err, results, server) = turn(
        &env,
        &[
            (
                "w",
                "write_file",
                json!({"path": "src/lib.rs", "content": "fn old_name() {}\nfn keep() {}\n"}),
            ),
            (
                "e",
                "edit_file",
                json!({"path": "src/lib.rs", "old_string": "old_name", "new_string": "new_name"}),
            ),
            ("g", "grep", json!({"pattern": "fn \\w+_name"})),
            ("f", "glob", json!({"pattern": "*.rs"})),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("src/lib.rs")).unwrap(),
        "fn new_name() {}\nfn keep() {}\n"
    );
    assert_eq!(
        results,
        [
            (
                "w".to_owned(),
                "Created src/lib.rs (30 bytes, 2 lines)".to_owned()
            ),
            (
                "e".to_owned(),
                "Replaced 1 occurrence in src/lib.rs".to_owned()
            ),
            (
                "g".to_owned(),
                "src/lib.rs:1: fn new_name() {}\n".to_owned()
            ),
            ("f".to_owned(), "src/lib.rs\n".to_owned()),
        ]
    );
    // The model is offered the built-in tools, these four among them (`shell`, then `update_plan`, last).
    let requests = server.requests();
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        offered,
        [
            "read_file",
            "list_files",
            "write_file",
            "edit_file",
            "grep",
            "glob",
            "shell",
            "update_plan"
        ]
    );
    let tools = audited_tools(&env, value["session"].as_str().unwrap());
    let audited: Vec<(&str, &str, &str, bool)> = tools
        .iter()
        .map(|t| {
            (
                t["tool"].as_str().unwrap(),
                t["call_id"].as_str().unwrap(),
                t["decision"].as_str().unwrap(),
                t["is_error"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        audited,
        [
            ("write_file", "w", "allowed", false),
            ("edit_file", "e", "allowed", false),
            ("grep", "g", "allowed", false),
            ("glob", "f", "allowed", false),
        ]
    );
}

#[test]
fn writes_are_refused_where_the_rules_refuse_them_on_the_real_path() {
    let env = TestEnv::new();
    let config = env.project_config(OPENAI);
    let settings = std::fs::read_to_string(&config).unwrap();
    env.write(".git/hooks/README", "hooks\n");
    env.write(".env", "TOKEN=hunter2\n");
    env.write("notes.txt", "one\ntwo\ntwo\n");
    let ws = env.workspace();
    symlink(".git", ws.join("gitdir")).unwrap();
    symlink("notes.txt", ws.join("alias.txt")).unwrap();
    symlink(".env", ws.join("innocent")).unwrap();
    let outside = env.outside();
    std::fs::create_dir_all(&outside).unwrap();
    let absolute = outside.join("abs.txt");
    let write =
        |id: &'static str, path: Value| (id, "write_file", json!({"path": path, "content": "x"}));
    let (code, _, err, results, server) = turn(
        &env,
        &[
            write("warden", json!(".warden/config.toml")),
            write("hook", json!(".git/hooks/pre-commit")),
            write("env", json!(".env")),
            write("gitdir", json!("gitdir/hooks/x")),
            write("up", json!("../outside")),
            write("abs", json!(absolute)),
            write("link", json!("alias.txt")),
            (
                "missing",
                "edit_file",
                json!({"path": "notes.txt", "old_string": "three", "new_string": "3"}),
            ),
            (
                "twice",
                "edit_file",
                json!({"path": "notes.txt", "old_string": "two", "new_string": "2"}),
            ),
            ("grep", "grep", json!({"pattern": "TOKEN"})),
            (
                "grep_link",
                "grep",
                json!({"pattern": "TOKEN", "path": "innocent"}),
            ),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    for (id, needle) in [
        ("warden", "propose the change to the person instead"),
        ("hook", "protected directory"),
        ("env", "deny globs"),
        ("gitdir", "protected directory"),
        ("up", "outside the workspace"),
        ("abs", "outside the workspace"),
        ("link", "symbolic link"),
        ("missing", "not found"),
        ("twice", "occurs 2 times"),
        ("grep_link", "deny globs"),
    ] {
        let text = result(&results, id);
        assert!(text.contains(needle), "{id}: {text}");
    }
    assert!(
        result(&results, "grep").starts_with("no matches in "),
        "{results:?}"
    );
    // Nothing was written, and the secret never reached the model.
    assert_eq!(std::fs::read_to_string(&config).unwrap(), settings);
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    assert!(!ws.join(".git/hooks/x").exists());
    assert_eq!(
        std::fs::read_to_string(ws.join(".env")).unwrap(),
        "TOKEN=hunter2\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "one\ntwo\ntwo\n"
    );
    assert!(
        std::fs::symlink_metadata(ws.join("alias.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(!ws.join("../outside").exists());
    assert!(!absolute.exists());
    let everything = serde_json::to_string(&server.requests()[1].body).unwrap();
    assert!(!everything.contains("hunter2"), "{everything}");
}
