//! A secret warden knows (a variable of its environment whose name looks secret) is masked
//! before anything leaves: a file the model reads holds it raw, base64-encoded, URL-encoded and
//! split across a line break, and none of these reach the model request, the history, the audit
//! log, the event stream, the OpenTelemetry collector, the terminal or an editor; the file on
//! disk is untouched, and a write that would put the placeholder in place of the value is refused.

use base64::Engine as _;
use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::acp::{MODEL, Sdk, drive_with, response, text_of};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const SECRET: &str = "s3cr3t-Planted-Value-7Qx9";
const SHORT: &str = "abc1234";

/// What the secret looks like in each form the file holds.
fn forms() -> Vec<String> {
    vec![
        SECRET.to_owned(),
        // The URL-encoded form differs from the raw one only where it escapes; this one has
        // nothing to escape, so a `%2D`-escaped dash is written instead.
        SECRET.replace('-', "%2D"),
        base64::engine::general_purpose::STANDARD.encode(format!("user:{SECRET}"))[8..28]
            .to_owned(),
        SECRET[..9].to_owned() + "\n" + &SECRET[9..],
    ]
}

fn planted(env: &TestEnv) -> String {
    let text = format!(
        "token = {SECRET}\nurl = https://x.example/?t={}\nbasic = {}\nsplit = {}\n{}\nshort = {SHORT}\n",
        SECRET.replace('-', "%2D"),
        base64::engine::general_purpose::STANDARD.encode(format!("user:{SECRET}")),
        &SECRET[..9],
        &SECRET[9..],
    );
    env.write("notes/config.txt", &text);
    text
}

/// No form of the secret is in `bytes` (named `what`).
fn absent(what: &str, bytes: &str) {
    for form in forms() {
        assert!(!bytes.contains(&form), "{what} holds {form:?}");
    }
    // The unsplit value is also not there with its line break written as `\n` in JSON.
    assert!(
        !bytes.contains(&format!("{}\\n{}", &SECRET[..9], &SECRET[9..])),
        "{what}"
    );
}

/// Every file under `dir`, as text.
fn all_files(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(all_files(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
    out
}

#[test]
fn a_known_secret_reaches_no_request_file_stream_or_collector() {
    let test = "a_known_secret_reaches_no_request_file_stream_or_collector";
    let env = TestEnv::new();
    let collector = crate::telemetry::Collector::start(test, &env, "ok");
    let telemetry = collector.as_ref().map_or_else(String::new, |c| {
        format!("[telemetry]\nendpoint = \"{}\"\n\n", c.endpoint())
    });
    env.user_config(&format!(
        "{MODEL}{telemetry}[tools]\nmode = \"full-auto\"\n"
    ));
    let original = planted(&env);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            ("r1", "read_file", json!({"path": "notes/config.txt"})),
            (
                "w1",
                "write_file",
                json!({"path": "notes/config.txt", "content": "token = [REDACTED:FOO_TOKEN]\n"}),
            ),
        ],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .env("FOO_TOKEN", SECRET)
        .env("SHORT_TOKEN", SHORT)
        .args(["run", "--json-stream", "look at @notes/config.txt"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stream = stdout(&out);
    absent("the event stream", &stream);
    absent("standard error", &stderr(&out));
    assert!(stream.contains("[REDACTED:FOO_TOKEN]"), "{stream}");
    // Short values are not masked (docs/secrets.md says so).
    assert!(stream.contains(SHORT));
    // Neither the attached file nor the tool result reached the model.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        absent("a model request", &request.body.to_string());
    }
    assert!(
        requests[1]
            .body
            .to_string()
            .contains("[REDACTED:FOO_TOKEN]")
    );
    // The placeholder was not written over the value.
    let told = requests[1].body.to_string();
    assert!(
        told.contains("not written: the text holds `[REDACTED:FOO_TOKEN]`"),
        "{told}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("notes/config.txt")).unwrap(),
        original
    );
    // History, audit, checkpoints: nothing warden wrote holds it.
    let written = all_files(&env.state_home());
    assert!(written.iter().any(|(p, _)| p.ends_with("history.jsonl")));
    for (path, text) in &written {
        absent(path, text);
    }
    // `warden doctor` names it, never shows it.
    let mut cmd = env.command();
    cmd.env("FOO_TOKEN", SECRET)
        .env("SHORT_TOKEN", SHORT)
        .arg("doctor");
    let doctor = stdout(&output_within(cmd, HANG_LIMIT));
    assert!(
        doctor.contains("secrets: masked in tool results"),
        "{doctor}"
    );
    assert!(doctor.contains("FOO_TOKEN"), "{doctor}");
    assert!(
        doctor.contains("shorter than 8 bytes: SHORT_TOKEN"),
        "{doctor}"
    );
    absent("warden doctor", &doctor);
    if let Some(collector) = collector {
        let sent = collector.text();
        assert!(!sent.is_empty(), "the collector received nothing");
        absent("the OTLP export", &sent);
    }
}

#[test]
fn a_known_secret_never_shows_in_the_chat_or_an_editor() {
    let test = "a_known_secret_never_shows_in_the_chat_or_an_editor";
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}[tools]\nmode = \"full-auto\"\n"));
    planted(&env);
    let script = |server: &MockServer| {
        server.push(Reply::tool_calls(
            "",
            &[("r1", "read_file", json!({"path": "notes/config.txt"}))],
        ));
        server.push(Reply::text("secret-test-turn-done"));
    };
    // An editor.
    let server = MockServer::start().unwrap();
    script(&server);
    let root = env.workspace();
    if let Some(record) = drive_with(
        test,
        Sdk::Ts,
        &env,
        Some(&server),
        &[],
        &[("FOO_TOKEN", SECRET)],
        json!([
            {"op": "initialize"},
            {"op": "new_session", "cwd": root},
            {"op": "prompt", "blocks": [{"type": "text", "text": "read it"}]},
        ]),
    ) {
        assert_eq!(response(&record, 2)["stopReason"], "end_turn");
        let updates = record["updates"].to_string();
        absent("the editor's updates", &updates);
        assert!(updates.contains("[REDACTED:FOO_TOKEN]"), "{updates}");
        assert!(text_of(&record, "agent_message_chunk").contains("secret-test-turn-done"));
    }
    // The terminal.
    if crate::chat::skip() {
        return;
    }
    let server = MockServer::start().unwrap();
    script(&server);
    let term = crate::chat::Terminal::start(
        &env,
        &["chat"],
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", server.openai_url()),
            ("NO_COLOR", "1".into()),
            ("FOO_TOKEN", SECRET.into()),
        ],
    );
    term.wait_for("warden ›");
    term.type_text("read the notes");
    term.press("Enter");
    term.wait_for("secret-test-turn-done");
    term.type_text("/last");
    term.press("Enter");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let screen = term.screen();
    absent("the terminal", &screen);
}

#[test]
fn a_known_secret_never_reaches_an_mcp_client_of_warden() {
    let test = "a_known_secret_never_reaches_an_mcp_client_of_warden";
    if crate::mcp_serve::skip_without_python_mcp(test) {
        return;
    }
    let env = TestEnv::new();
    planted(&env);
    let ws = env.workspace().display().to_string();
    let mut cmd = env.command_of(std::path::Path::new("python3"));
    cmd.arg(crate::mcp_serve::client_script())
        .arg("stdio")
        .arg(crate::support::warden_bin())
        .args(["mcp", "serve", "-C", &ws])
        .env("FOO_TOKEN", SECRET)
        .stdin(std::process::Stdio::piped());
    let steps = json!([crate::mcp_serve::call(
        "read_file",
        json!({"path": "notes/config.txt"})
    )]);
    let out = crate::support::output_with_input(
        cmd,
        steps.to_string().as_bytes(),
        crate::mcp_serve::LIMIT,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    absent("the MCP client's results", &said);
    assert!(said.contains("[REDACTED:FOO_TOKEN]"), "{said}");
}
