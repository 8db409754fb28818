//! Ctrl-C while the model streams: the turn stops, the partial answer is not committed, the
//! session stays usable.

use std::io::Read;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{TestEnv, stderr, stdout};

#[test]
fn ctrl_c_while_streaming_commits_no_partial_answer() {
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\ntimeout_s = 60\n",
    );
    let server = MockServer::start().unwrap();
    server.push(Reply::stall(
        "these words arrive and then the stream stalls forever",
        4,
    ));

    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--new-session", "interrupted", "hello"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 256];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            let _ = tx.send(());
        }
        seen
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    // Wait for streamed text, then press Ctrl-C.
    rx.recv_timeout(Duration::from_secs(60))
        .expect("streamed text before the stall");
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "warden did not stop after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let printed = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let errors = err_reader.join().unwrap();
    assert_eq!(code, Some(130), "{errors}");
    assert!(
        printed.starts_with("these"),
        "partial text was shown: {printed}"
    );
    assert!(
        errors.contains("partial answer was not committed"),
        "{errors}"
    );

    let export = env.run(&["session", "export", "interrupted"]);
    let history: serde_json::Value = serde_json::from_str(&stdout(&export)).unwrap();
    assert_eq!(
        history,
        json!([{"role": "user", "text": "hello", "source": "user"}])
    );

    // The session goes on: the next turn sees the user item and its own prompt, no partial text.
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--session", "interrupted", "again"]);
    let again = crate::support::output_within(cmd, crate::support::HANG_LIMIT);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let messages = server.requests()[1].body["messages"].clone();
    let texts: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        !texts.iter().any(|t| t.contains("these words")),
        "{texts:?}"
    );
    assert!(texts.ends_with(&["hello", "again"]), "{texts:?}");
}
