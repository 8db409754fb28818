//! Compaction through the real binary against the mock model server: the summary and the
//! files re-read start the next request, history keeps its first lines byte for byte, a resume
//! sends the same request, and a crash during compaction leaves the whole group or none.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout, warden_bin};

const SESSION: &str = "s-compact";
const SUMMARY: &str = "SUMMARY: the person read a.txt and b.txt and asked about both.";

fn openai_project(env: &TestEnv) {
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nstream = false\nmax_retries = 0\n",
    );
}

fn warden(env: &TestEnv, server: &MockServer, args: &[&str]) -> Command {
    let mut cmd = env.command();
    cmd.env("OPENAI_BASE_URL", server.openai_url())
        .env("OPENAI_API_KEY", "sk-test")
        .args(args);
    cmd
}

fn ok(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
}

fn turn(env: &TestEnv, server: &MockServer, prompt: &str, answer: &str) {
    server.push(Reply::text(answer));
    let out = output_within(
        warden(
            env,
            server,
            &["run", env.session_flag(SESSION), SESSION, prompt],
        ),
        HANG_LIMIT,
    );
    ok(&out);
}

fn history(env: &TestEnv) -> Vec<u8> {
    std::fs::read(
        env.state_home()
            .join("sessions")
            .join(SESSION)
            .join("history.jsonl"),
    )
    .expect("read history")
}

/// The messages of a recorded request, without the system prompt (the first message).
fn items(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().expect("messages");
    assert_eq!(messages[0]["role"], "system");
    messages[1..].to_vec()
}

fn export(env: &TestEnv, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["session", "export"];
    args.extend_from_slice(extra);
    args.push(SESSION);
    let out = env.run(&args);
    ok(&out);
    serde_json::from_str(&stdout(&out)).expect("export is JSON")
}

/// Three turns with `@` references, ready to compact.
fn three_turns(env: &TestEnv, server: &MockServer) {
    openai_project(env);
    env.write("a.txt", "alpha version one\n");
    env.write("b.txt", "beta version one\n");
    // Large enough that a compaction group is always longer than one 1 KiB block.
    env.write("c.txt", "gamma stays\n".repeat(200));
    turn(env, server, "Read @a.txt please", "Read a.");
    turn(env, server, "Now @b.txt", "Read b.");
    turn(env, server, "Compare @a.txt with @c.txt", "Compared.");
}

#[test]
fn compacted_session_sends_summary_and_current_files_and_keeps_history() {
    let env = TestEnv::new();
    let server = MockServer::start().expect("mock server");
    three_turns(&env, &server);
    let before = history(&env);

    // Between turns 3 and 4: a changes, b is deleted; then the session is compacted.
    env.write("a.txt", "alpha version TWO\n");
    std::fs::remove_file(env.workspace().join("b.txt")).expect("remove b");
    server.push(Reply::text(SUMMARY));
    let out = output_within(warden(&env, &server, &["compact", SESSION]), HANG_LIMIT);
    ok(&out);
    assert!(
        stdout(&out).contains("files re-read: a.txt, b.txt, c.txt"),
        "{}",
        stdout(&out)
    );
    // The summary request: the history so far, then the documented prompt.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    let asked = items(&reqs[3].body);
    assert_eq!(
        asked.last().expect("prompt")["content"],
        warden::domain::SUMMARY_PROMPT
    );
    assert_eq!(asked.len(), items(&reqs[2].body).len() + 2);

    turn(&env, &server, "What next?", "Next.");
    let reqs = server.requests();
    let fourth = items(&reqs[4].body);
    assert_eq!(fourth[0]["role"], "system");
    let first = fourth[0]["content"].as_str().expect("text");
    assert!(
        first.starts_with("[Summary of the conversation before compaction]")
            && first.contains(SUMMARY),
        "{first}"
    );
    let sent = serde_json::to_string(&fourth).expect("json");
    assert!(sent.contains("alpha version TWO"), "{sent}");
    assert!(!sent.contains("alpha version one"), "{sent}");
    assert!(!sent.contains("Read @a.txt please"), "{sent}");
    assert!(sent.contains("gamma stays"), "{sent}");
    assert!(
        sent.contains("b.txt was referenced before compaction and cannot be read now: not-found"),
        "{sent}"
    );
    assert_eq!(fourth.last().expect("user")["content"], "What next?");

    // History is append-only: what was there before is byte for byte the same.
    let after = history(&env);
    assert!(after.len() > before.len());
    assert_eq!(&after[..before.len()], &before[..]);

    // Export shows everything with the marker; --as-sent what the next request holds.
    let all = export(&env, &[]);
    assert_eq!(all[0]["text"], "Read @a.txt please");
    assert!(all.iter().any(|i| {
        i["source"] == "compaction"
            && i["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("[compaction: items 1–"))
    }));
    let as_sent = export(&env, &["--as-sent"]);
    assert_eq!(as_sent.len(), fourth.len() + 1);
    for (exported, sent) in as_sent.iter().zip(&fourth) {
        assert_eq!(exported["text"], sent["content"]);
    }

    // A resume builds the same request again: the fourth request, then the new items.
    turn(&env, &server, "And then?", "Then.");
    let reqs = server.requests();
    assert_eq!(reqs[5].body["messages"][0], reqs[4].body["messages"][0]);
    let fifth = items(&reqs[5].body);
    assert_eq!(&fifth[..fourth.len()], &fourth[..]);
}

/// After a crash the session loads, and its items are what they were, or that plus one whole
/// compaction group (marker, summary, the three files).
fn whole_or_none(env: &TestEnv, before: &[Value]) -> bool {
    let after = export(env, &[]);
    assert_eq!(&after[..before.len()], before, "committed items changed");
    let added = &after[before.len()..];
    if added.is_empty() {
        return false;
    }
    assert_eq!(added.len(), 5, "{added:?}");
    assert!(added.iter().all(|i| i["role"] == "system"), "{added:?}");
    assert!(
        added[0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("[compaction: items ")),
        "{added:?}"
    );
    assert_eq!(added[1]["source"], "compaction");
    assert!(
        added[2..].iter().all(|i| i["source"] == "fileref"),
        "{added:?}"
    );
    true
}

#[test]
fn sigkill_during_compaction_leaves_the_whole_group_or_none() {
    let env = TestEnv::new();
    let server = MockServer::start().expect("mock server");
    three_turns(&env, &server);
    let mut outcomes = [0usize; 2];
    for (i, pause) in [0u64, 40, 80, 95, 100, 105, 110, 120, 150, 400]
        .into_iter()
        .enumerate()
    {
        let before = export(&env, &[]);
        // A reply a killed process never asked for is still queued.
        if server.pending_replies() == 0 {
            server.push(Reply::delay(100, Reply::text(format!("{SUMMARY} #{i}"))));
        }
        let mut child = warden(&env, &server, &["compact", SESSION])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(pause));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        outcomes[usize::from(whole_or_none(&env, &before))] += 1;
    }
    // The cut at a byte inside the group's write: the torn group is dropped on load.
    let before = export(&env, &[]);
    if server.pending_replies() == 0 {
        server.push(Reply::text(SUMMARY));
    }
    let blocks = history(&env).len() / 512 + 1;
    let out = output_within(
        {
            let mut cmd = Command::new("sh");
            cmd.args([
                "-c",
                r#"ulimit -c 0; ulimit -f "$1"; shift; exec "$@""#,
                "sh",
            ])
            .arg(blocks.to_string())
            .arg(warden_bin())
            .args(["compact", SESSION]);
            let base = warden(&env, &server, &[]);
            cmd.current_dir(env.workspace()).env_clear();
            for (k, v) in base.get_envs() {
                if let Some(v) = v {
                    cmd.env(k, v);
                }
            }
            cmd
        },
        HANG_LIMIT,
    );
    assert_ne!(
        out.status.code(),
        Some(0),
        "the size limit did not cut the group"
    );
    assert!(!whole_or_none(&env, &before));
    eprintln!(
        "sigkill outcomes: none {}, whole {}",
        outcomes[0], outcomes[1]
    );
}

#[test]
fn a_file_denied_since_it_was_shown_is_a_note_after_compaction() {
    let env = TestEnv::new();
    let server = MockServer::start().expect("mock server");
    openai_project(&env);
    env.write("notes.txt", "private plans\n");
    turn(&env, &server, "Read @notes.txt", "Read.");
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nstream = false\nmax_retries = 0\n[fileref]\ndeny = [\"notes.txt\"]\n",
    );
    server.push(Reply::text(SUMMARY));
    let out = output_within(warden(&env, &server, &["compact", SESSION]), HANG_LIMIT);
    ok(&out);
    let as_sent = serde_json::to_string(&export(&env, &["--as-sent"])).expect("json");
    assert!(!as_sent.contains("private plans"), "{as_sent}");
    assert!(
        as_sent
            .contains("notes.txt was referenced before compaction and cannot be read now: denied"),
        "{as_sent}"
    );
}

/// Compaction re-reads only what the person referenced (`@a.txt`) and the model's own file
/// tool calls that ran (`ran.txt`): not a `read_file` call an interceptor made up with
/// `continue-with` (`planted.txt`), nor the model's call a guard denied (`guarded.txt`).
#[test]
fn compaction_rereads_only_files_the_person_or_a_call_that_ran_named() {
    let env = TestEnv::new();
    let server = MockServer::start().expect("mock server");
    env.write("a.txt", "alpha\n");
    env.write("ran.txt", "RAN TEXT\n");
    env.write("planted.txt", "PLANTED TEXT\n");
    env.write("guarded.txt", "GUARDED TEXT\n");
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nstream = false\nmax_retries = 0\n\n{}{}",
        crate::support::plugin_entry(
            "interceptor",
            "forger",
            &warden_tests::fixtures::hostile(),
            "",
            &[("mode", "forge-read")]
        ),
        crate::support::plugin_entry(
            "interceptor",
            "guard",
            &warden_tests::fixtures::tool_guard(),
            "",
            &[("deny", "read_file:guarded*")]
        ),
    ));
    server.push(Reply::tool_calls(
        "",
        &[
            ("c1", "read_file", serde_json::json!({"path": "ran.txt"})),
            (
                "c2",
                "read_file",
                serde_json::json!({"path": "guarded.txt"}),
            ),
        ],
    ));
    turn(&env, &server, "Read @a.txt", "Read.");
    server.push(Reply::text(SUMMARY));
    let out = output_within(warden(&env, &server, &["compact", SESSION]), HANG_LIMIT);
    ok(&out);
    assert!(
        stdout(&out).contains("files re-read: a.txt, ran.txt of session"),
        "{}",
        stdout(&out)
    );
    let as_sent = serde_json::to_string(&export(&env, &["--as-sent"])).expect("json");
    assert!(as_sent.contains("RAN TEXT"), "{as_sent}");
    assert!(!as_sent.contains("PLANTED TEXT"), "{as_sent}");
    assert!(!as_sent.contains("GUARDED TEXT"), "{as_sent}");
}
