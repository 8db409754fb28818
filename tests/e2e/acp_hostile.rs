//! `warden acp` against a hostile or broken client, spoken to byte by byte: invalid JSON, a
//! message over the size limit, unknown methods, a prompt for no session, a `cwd` that is no
//! workspace (relative, the file system root, a symbolic link into `.git`), a prompt over
//! `worker.max_prompt_bytes`, and a client that never answers a permission request. Each gets a
//! JSON-RPC error or a bounded wait; the agent keeps serving and exits cleanly when its input
//! closes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::acp::MODEL;
use crate::support::{SYSTEM_MANAGED_VAR, TestEnv};

/// A raw connection to `warden acp`.
pub(crate) struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    next_id: u64,
}

const WAIT: Duration = Duration::from_secs(60);

impl Raw {
    /// `warden acp ARGS…` in `env`, against `server` when given.
    pub(crate) fn start(env: &TestEnv, server: Option<&MockServer>, args: &[&str]) -> Self {
        let mut cmd = env.command();
        cmd.arg("acp")
            .args(args)
            .env(SYSTEM_MANAGED_VAR, env.system_managed_path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(server) = server {
            cmd.env("OPENAI_API_KEY", "sk-test")
                .env("OPENAI_BASE_URL", server.openai_url());
        }
        let mut child = cmd.spawn().expect("start warden acp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let value =
                    serde_json::from_str(&line).unwrap_or_else(|_| json!({"not_json": line}));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 100,
        }
    }

    /// Write `bytes` as they are.
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// Send request `method` and return its id.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.write(format!("{line}\n").as_bytes());
        id
    }

    /// The next message that `pick` accepts (others are kept in `seen`).
    pub(crate) fn until(&mut self, seen: &mut Vec<Value>, pick: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(value) if pick(&value) => return value,
                Ok(value) => seen.push(value),
                Err(RecvTimeoutError::Timeout) => panic!("no such message in {WAIT:?}: {seen:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("warden acp stopped: {seen:?}"),
            }
        }
    }

    /// The answer to request `id`.
    pub(crate) fn answer(&mut self, id: u64) -> Value {
        let mut seen = Vec::new();
        self.until(&mut seen, |v| v["id"] == id && v.get("method").is_none())
    }

    /// `initialize`, then `session/new` in `cwd`: the session id.
    pub(crate) fn session(&mut self, cwd: &std::path::Path) -> String {
        let id = self.request("initialize", json!({"protocolVersion": 1}));
        assert!(self.answer(id)["result"].is_object());
        let id = self.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        let answer = self.answer(id);
        answer["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("{answer}"))
            .to_owned()
    }

    /// Close the input and wait (bounded) for a clean exit.
    pub(crate) fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("warden acp did not exit after its input closed");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn error_of(answer: &Value) -> (i64, String) {
    (
        answer["error"]["code"].as_i64().unwrap_or_default(),
        format!("{} {}", answer["error"]["message"], answer["error"]["data"]),
    )
}

#[test]
fn broken_and_hostile_messages_get_json_rpc_errors_and_the_agent_keeps_serving() {
    let env = TestEnv::new();
    let mut acp = Raw::start(&env, None, &[]);
    // Not JSON: a parse error.
    acp.write(b"this is not json\n");
    let mut seen = Vec::new();
    let parse = acp.until(&mut seen, |v| v.get("error").is_some());
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    // Over the size limit: answered at once with its id, nothing of it read.
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"session/prompt\",\"params\":{{\"text\":\"{}\"}}}}\n",
        "x".repeat(17 << 20)
    );
    acp.write(huge.as_bytes());
    let (code, message) = error_of(&acp.answer(77));
    assert_eq!(code, -32600);
    assert!(message.contains("over warden's limit"), "{message}");
    // Before `initialize`, a request is refused; after it, unknown methods are not found.
    let id = acp.request("session/list", json!({}));
    assert_eq!(error_of(&acp.answer(id)).0, -32600);
    let id = acp.request("initialize", json!({"protocolVersion": 1}));
    assert_eq!(acp.answer(id)["result"]["protocolVersion"], 1);
    let id = acp.request("x/unknown", json!({}));
    assert_eq!(error_of(&acp.answer(id)).0, -32601);
    let id = acp.request("_warden/anything", json!({"a": 1}));
    assert_eq!(error_of(&acp.answer(id)).0, -32601);
    // A prompt for a session that is not open.
    let id = acp.request(
        "session/prompt",
        json!({"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}),
    );
    let (code, message) = error_of(&acp.answer(id));
    assert_eq!(code, -32602);
    assert!(message.contains("no open session nope"), "{message}");
    // A `cwd` that is no workspace.
    let git = env.workspace().join(".git");
    std::fs::create_dir_all(git.join("hooks")).unwrap();
    let link = env.outside().join("into-git");
    std::os::unix::fs::symlink(git.join("hooks"), &link).unwrap();
    for (cwd, expected) in [
        (json!("relative/dir"), "not an absolute path"),
        (json!("/"), "the file system root is not a workspace"),
        (json!(link), "inside"),
        (json!(env.workspace().join("missing")), "No such file"),
    ] {
        let id = acp.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        let (code, message) = error_of(&acp.answer(id));
        assert_eq!(code, -32602, "{cwd}: {message}");
        assert!(message.contains(expected), "{cwd}: {message}");
    }
    // A session id that is a path, or names no session.
    for id in ["../../etc/passwd", "no-such-session"] {
        let request = acp.request(
            "session/load",
            json!({"sessionId": id, "cwd": env.workspace(), "mcpServers": []}),
        );
        let (code, message) = error_of(&acp.answer(request));
        assert_eq!(code, -32602, "{id}: {message}");
    }
    // Still serving: a session opens, and a prompt over the limit is refused naming it.
    let session = acp.session(&env.workspace());
    let id = acp.request(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "y".repeat(2 << 20)}]}),
    );
    let (code, message) = error_of(&acp.answer(id));
    assert_eq!(code, -32602);
    assert!(message.contains("worker.max_prompt_bytes"), "{message}");
    assert!(acp.finish().success());
}

#[test]
fn a_client_that_never_answers_a_permission_request_gets_a_bounded_wait() {
    let env = TestEnv::new();
    env.user_config(MODEL);
    env.write("a.txt", "hello\n");
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("w1", "write_file", json!({"path": "b.txt", "content": "x"}))],
    ));
    server.push(Reply::text("gave up"));
    let mut acp = Raw::start(&env, Some(&server), &["--ask-timeout", "2"]);
    let session = acp.session(&env.workspace());
    let started = Instant::now();
    let id = acp.request(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "write b"}]}),
    );
    let mut seen = Vec::new();
    let asked = acp.until(&mut seen, |v| v["method"] == "session/request_permission");
    assert_eq!(asked["params"]["toolCall"]["toolCallId"], "w1");
    // Never answered: after the wait the call is not run and the turn goes on.
    let answer = acp.until(&mut seen, |v| v["id"] == id && v.get("method").is_none());
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    assert!(started.elapsed() >= Duration::from_secs(2));
    assert!(!env.workspace().join("b.txt").exists());
    // The request was withdrawn, and the model read why the call did not run.
    assert!(
        seen.iter().any(|v| v["method"] == "$/cancel_request"),
        "{seen:?}"
    );
    let told = server.requests()[1].body.to_string();
    assert!(told.contains("did not answer within 2 s"), "{told}");
    assert!(acp.finish().success());
}
