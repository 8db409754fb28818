//! Waits and failures through the real binary: a model server that never answers ends within
//! `model.max_wait_s`, a refused connection is said once, a denied tool call shows under
//! `run -v`, `warden preview` shows headers unless `--full`, policy messages are said once and
//! name their files.

use std::net::TcpListener;
use std::time::Duration;

use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{TestEnv, output_within, stderr, stdout};

/// Far above the 3 s budget the tests set: only a hang (or the old 5 × 30 s) reaches it.
const GENEROUS: Duration = Duration::from_secs(30);

fn openai_run(env: &TestEnv, url: &str, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", url)
        .args(args);
    output_within(cmd, GENEROUS)
}

#[test]
fn a_server_that_accepts_and_never_answers_ends_within_the_wait_budget() {
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_wait_s = 3\nretry_base_ms = 1\nretry_max_ms = 4\n",
    );
    // Accepts every connection and holds it open without reading or answering.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let out = openai_run(
        &env,
        &format!("http://127.0.0.1:{port}/v1"),
        &["run", "hello"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("max_wait_s"), "{err}");
    assert!(err.contains("3 s"), "{err}");
}

#[test]
fn a_refused_connection_is_said_once_and_retried_at_most_once() {
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 4\nretry_base_ms = 1\nretry_max_ms = 4\n",
    );
    // A port that was just free: nothing listens there.
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let out = openai_run(
        &env,
        &format!("http://127.0.0.1:{port}/v1"),
        &["run", "hello"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let lower = err.to_lowercase();
    assert_eq!(lower.matches("refused").count(), 1, "{err}");
    assert!(lower.matches("retry").count() <= 1, "{err}");
}

#[test]
fn run_verbose_shows_a_denied_tool_call_with_its_outcome() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    env.project_config("[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n");
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "w1",
            "write_file",
            serde_json::json!({"path": "a.txt", "content": "two\n"}),
        )],
    ));
    server.push(Reply::text("done"));
    let out = openai_run(&env, &server.openai_url(), &["run", "-v", "change it"]);
    let err = stderr(&out);
    // Its only write was denied: exit 4.
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert_eq!(
        err.matches("✗ write_file a.txt — denied by").count(),
        1,
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "one\n"
    );
}

#[test]
fn preview_shows_headers_and_sizes_and_full_shows_bodies() {
    let env = TestEnv::new();
    let body: String = (1..=280).map(|n| format!("readme line {n}\n")).collect();
    env.write("README.md", &body);
    let out = env.run(&["preview", "summarise @README.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(shown.lines().count() < 20, "{shown}");
    assert!(shown.contains("README.md"), "{shown}");
    assert!(shown.contains("281 lines"), "{shown}");
    assert!(!shown.contains("readme line 200"), "{shown}");

    let out = env.run(&["preview", "--full", "summarise @README.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("readme line 280"), "{}", stdout(&out));
}

#[test]
fn a_lock_warning_is_said_once_per_command() {
    let env = TestEnv::new();
    env.managed_config("[policy]\nlocked = [\"model\", \"tools.mode\"]\n");
    let user = env.user_config("[model]\nmax_tokens = 100\n\n[tools]\nmode = \"auto-edit\"\n");
    let project = env.project_config("[model]\nmax_tokens = 200\n");
    for args in [&["run", "hi"][..], &["preview", "hi"][..]] {
        let out = env.run(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(
            err.matches("locked by managed policy").count(),
            1,
            "{args:?}: {err}"
        );
        for file in [&user, &project] {
            assert!(err.contains(&file.display().to_string()), "{err}");
        }
    }
}

#[test]
fn a_projects_looser_tool_ceiling_is_said_and_a_ceiling_error_names_the_managed_file() {
    let env = TestEnv::new();
    let managed = env.managed_config("[policy]\nmax_tool_grants = { fs = \"read\" }\n");
    let project = env.project_config("[policy]\nmax_tool_grants = { fs = \"read-write\" }\n");
    let out = env.run(&["run", "hi"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("policy.max_tool_grants").count(), 1, "{err}");
    assert!(err.contains(&project.display().to_string()), "{err}");

    env.project_config(
        "[[plugins]]\nname = \"edit\"\nkind = \"tool\"\npath = \"edit.wasm\"\nfs = \"read-write\"\n",
    );
    let out = env.run(&["run", "hi"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&managed.display().to_string()), "{err}");
}

#[test]
fn config_show_shows_everything_and_marks_an_entry_over_a_ceiling() {
    let env = TestEnv::new();
    env.managed_config("[policy]\nmax_tool_grants = { fs = \"read\" }\n");
    env.project_config(
        "[model]\nmax_tokens = 123\n\n[[plugins]]\nname = \"edit\"\nkind = \"tool\"\npath = \"edit.wasm\"\nfs = \"read-write\"\n",
    );
    let out = env.run(&["config", "show"]);
    let (shown, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(shown.contains("model.max_tokens"), "{shown}");
    assert!(shown.contains("123"), "{shown}");
    let refused = shown
        .lines()
        .find(|l| l.contains("edit") && l.contains("refused"))
        .unwrap_or_else(|| panic!("no refused entry:\n{shown}\n{err}"));
    assert!(refused.contains("plugins.edit.fs"), "{refused}");
}

#[test]
fn the_audit_gives_compaction_its_own_record_and_every_request_its_outcome() {
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nstream = false\nmax_retries = 0\n",
    );
    env.write("a.txt", "alpha\n");
    let server = MockServer::start().unwrap();
    let session = "audited";
    let flag = env.session_flag(session);
    server.push(Reply::text("read it"));
    let out = openai_run(
        &env,
        &server.openai_url(),
        &["run", flag, session, "see @a.txt"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    server.push(Reply::error(400, "invalid_request_error", "bad request"));
    let out = openai_run(
        &env,
        &server.openai_url(),
        &["run", "--session", session, "again"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    server.push(Reply::text("SUMMARY"));
    let out = openai_run(&env, &server.openai_url(), &["compact", session]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let out = env.run(&["audit", session, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let audit: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let turns = audit["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 3, "{audit}");
    assert_eq!(turns[0]["requests"][0]["outcome"], "ok", "{audit}");
    assert_eq!(turns[1]["outcome"], "failed", "{audit}");
    assert_eq!(turns[1]["requests"][0]["outcome"], "failed", "{audit}");
    assert!(
        turns[1]["requests"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("bad request")),
        "{audit}"
    );
    assert_eq!(turns[2]["kind"], "compact", "{audit}");
    assert!(turns[2]["replaces"]["to"].is_u64(), "{audit}");
    assert_eq!(turns[2]["requests"][0]["outcome"], "ok", "{audit}");
    assert_eq!(turns[2]["files"][0]["path"], "a.txt", "{audit}");
    // The failed turn holds only its own request: the compaction did not land under it.
    assert_eq!(turns[1]["requests"].as_array().unwrap().len(), 1, "{audit}");

    let out = env.run(&["audit", session]);
    let shown = stdout(&out);
    assert!(shown.contains("compaction of history"), "{shown}");
    assert!(shown.contains("— failed: "), "{shown}");
}
