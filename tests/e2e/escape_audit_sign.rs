//! `[audit] sign_key` through the binary: every session `warden run` ends is signed, so
//! `warden audit verify --key PUB` catches the log cut back or rechained without the history;
//! the key file is hidden from the model's commands; a project cannot choose the key; a key
//! that cannot be used stops the run before a session starts.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::audit_chain::{audit_file, join, lines, scripted_session};
use crate::mcp_client::sandbox;
use crate::support::{HANG_LIMIT, TestEnv, output_within, run_go_json, stderr, stdout};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// A key pair under the test's root (outside the workspace): (secret, public).
fn keys(env: &TestEnv) -> (String, String) {
    let dir = env.root_path().join("operator-keys");
    let out = env.run(&["plugin", "keygen", &dir.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    (path("warden-signing.key"), path("warden-signing.pub"))
}

fn verify_with(env: &TestEnv, session: &str, public: &str) -> (Option<i32>, Value) {
    let out = env.run(&["audit", "verify", session, "--key", public, "--json"]);
    let value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    (out.status.code(), value)
}

#[test]
fn every_session_a_run_ends_is_signed_and_a_cut_log_fails_the_key() {
    let env = TestEnv::new();
    let (secret, public) = keys(&env);
    env.user_config(&format!("[audit]\nsign_key = {secret:?}\n"));
    env.project_config(&format!("{MODEL}{AUTO_EDIT}"));
    let session = scripted_session(&env, "signed");

    let sig = env
        .state_home()
        .join("sessions")
        .join(&session)
        .join("audit.sig");
    let signed: Value = serde_json::from_slice(&std::fs::read(&sig).unwrap()).unwrap();
    let path = audit_file(&env, &session);
    let records = lines(&std::fs::read(&path).unwrap());
    // The head signed is the log's last record: the run's whole tail is covered.
    assert_eq!(signed["seq"], json!(records.len() - 1), "{signed}");
    let (code, report) = verify_with(&env, &session, &public);
    assert_eq!(code, Some(0), "{report}");

    // Without the history's help: the history and audit.head removed from the picture by
    // cutting the log and rewriting both would still meet the signature.
    std::fs::write(&path, join(&records[..records.len() - 1])).unwrap();
    let (code, report) = verify_with(&env, &session, &public);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["ok"], json!(false), "{report}");
}

#[test]
fn the_signing_key_is_hidden_from_the_models_commands() {
    if !sandbox("the_signing_key_is_hidden_from_the_models_commands") {
        return;
    }
    let env = TestEnv::new();
    let (secret, _) = keys(&env);
    let key_text = std::fs::read_to_string(&secret).unwrap();
    env.user_config(&format!("[audit]\nsign_key = {secret:?}\n"));
    env.project_config(&format!("{MODEL}[tools]\nmode = \"full-auto\"\n"));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "c1",
            "shell",
            json!({"command": format!("cat {secret}; ls -la {}", std::path::Path::new(&secret).parent().unwrap().display())}),
        )],
    ));
    server.push(Reply::text("done"));
    run_go_json(&env, &server.openai_url());
    let requests = server.requests();
    let result = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .unwrap();
    let secret_line = key_text.trim();
    assert!(!secret_line.is_empty());
    assert!(
        !result.contains(secret_line),
        "the command read the signing key: {result}"
    );
}

#[test]
fn a_project_cannot_choose_the_key_and_an_unusable_key_stops_the_run() {
    let env = TestEnv::new();
    let (secret, public) = keys(&env);
    // The project names the key: ignored, with a warning naming the file.
    env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}[audit]\nsign_key = {secret:?}\n"
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::text("done"));
    let (out, session) = run_go_json(&env, &server.openai_url());
    assert!(
        stderr(&out).contains("`[audit]` cannot be set by a project"),
        "{}",
        stderr(&out)
    );
    let (code, report) = verify_with(&env, &session, &public);
    assert_eq!(code, Some(1), "not signed, so --key fails: {report}");

    // The public key where the secret one should be: refused before a session starts.
    env.project_config(&format!("{MODEL}{AUTO_EDIT}"));
    env.user_config(&format!("[audit]\nsign_key = {public:?}\n"));
    let before = std::fs::read_dir(env.state_home().join("sessions"))
        .unwrap()
        .count();
    let run = |env: &TestEnv| {
        let mut cmd = env.command();
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", server.openai_url())
            .args(["run", "go"]);
        output_within(cmd, HANG_LIMIT)
    };
    let out = run(&env);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("audit.sign_key") && err.contains(&public) && err.contains("public key"),
        "{err}"
    );
    let after = std::fs::read_dir(env.state_home().join("sessions"))
        .unwrap()
        .count();
    assert_eq!(before, after, "no session was created");

    // A relative path in the user layer: an error naming the key.
    env.user_config("[audit]\nsign_key = \"keys/a.key\"\n");
    let out = run(&env);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("audit.sign_key"), "{}", stderr(&out));
}
