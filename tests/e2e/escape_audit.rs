//! Hostile edits of a real session's audit log that `warden audit verify` once called intact,
//! each through the binary: a record with a mistyped chain field, a garbage line mid-log, every
//! chain field stripped (and a next run starting a fresh chain), the log deleted or emptied, the
//! last record removed, the chain recomputed after an edit; a FIFO, `/dev/zero` or a symbolic
//! link as the log. Each is broken (exit 1, the file and line named), and `warden audit` and
//! `plugin shadow-report` refuse to list what `verify` refuses.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::audit_chain::{audit_file, join, lines, scripted_session, verify};
use crate::support::{TestEnv, output_within, stderr, stdout};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// A bound for commands that once hung on a FIFO: far above what they take.
const QUICK: Duration = Duration::from_secs(30);

fn env_with_session(tag: &str) -> (TestEnv, String) {
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{AUTO_EDIT}"));
    let session = scripted_session(&env, tag);
    (env, session)
}

/// `verify` says broken, exit 1, and its text names the log file and `line` (when given).
fn assert_broken(env: &TestEnv, session: &str, line: Option<u64>, case: &str) -> Value {
    let (code, report) = verify(env, session);
    assert_eq!(code, Some(1), "{case}: {report}");
    assert_eq!(report["status"], "broken", "{case}: {report}");
    if let Some(line) = line {
        assert_eq!(report["broken"]["line"], line, "{case}: {report}");
    }
    let out = env.run(&["audit", "verify", session]);
    assert_eq!(out.status.code(), Some(1), "{case}");
    let text = stdout(&out);
    let path = audit_file(env, session).display().to_string();
    assert!(
        text.contains(": broken: ") && text.contains(&path),
        "{case}: {text}"
    );
    if let Some(line) = line {
        assert!(text.contains(&format!("line {line}")), "{case}: {text}");
    }
    report
}

/// A shadow decision that never happened, in the shape of a record.
fn forged_shadow(seq: &str) -> Vec<u8> {
    format!(
        r#"{{"ts":"2026-01-01T00:00:00.000Z","event":{{"type":"shadow_decision","plugin":"forged","sha256":"00","point":"pre-tool-call","decision":"deny","chain":"allow","differs":true}},"seq":{seq},"prev":"{z}","hash":"{z}"}}"#,
        z = "0".repeat(64)
    )
    .into_bytes()
}

#[test]
fn a_record_with_a_mistyped_chain_field_is_broken_and_no_reader_lists_it() {
    let (env, session) = env_with_session("typed");
    let path = audit_file(&env, &session);
    let mut records = lines(&std::fs::read(&path).unwrap());
    records.insert(2, forged_shadow("\"x\""));
    std::fs::write(&path, join(&records)).unwrap();

    let report = assert_broken(&env, &session, Some(3), "seq \"x\"");
    assert_eq!(report["broken"]["kind"], "edited", "{report}");

    for args in [
        vec!["audit", session.as_str(), "--json"],
        vec!["plugin", "shadow-report", "--json"],
    ] {
        let out = env.run(&args);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {}", stdout(&out));
        assert!(
            !stdout(&out).contains("forged"),
            "{args:?}: {}",
            stdout(&out)
        );
        let err = stderr(&out);
        assert!(
            err.contains(&path.display().to_string()) && err.contains("line 3"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_garbage_line_mid_log_is_broken_and_a_torn_last_line_is_not() {
    let (env, session) = env_with_session("garbage");
    let path = audit_file(&env, &session);
    let original = std::fs::read(&path).unwrap();
    let mut records = lines(&original);
    records.insert(1, b"{\"ts\":\"2026-".to_vec());
    std::fs::write(&path, join(&records)).unwrap();
    assert_broken(&env, &session, Some(2), "garbage mid-log");

    // The same bytes as the last line, with no newline after them: where a crash leaves a
    // line, skipped.
    let mut torn = original.clone();
    torn.extend_from_slice(b"{\"ts\":\"2026-");
    std::fs::write(&path, &torn).unwrap();
    let (code, report) = verify(&env, &session);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["torn"], 1, "{report}");
    let out = env.run(&["audit", &session, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_stripped_chain_is_broken_and_a_next_run_does_not_start_a_fresh_one() {
    let (env, session) = env_with_session("strip");
    let path = audit_file(&env, &session);
    let stripped: Vec<Vec<u8>> = lines(&std::fs::read(&path).unwrap())
        .into_iter()
        .map(|line| {
            let mut v: serde_json::Map<String, Value> = serde_json::from_slice(&line).unwrap();
            for key in ["seq", "prev", "hash"] {
                v.remove(key);
            }
            serde_json::to_vec(&v).unwrap()
        })
        .collect();
    std::fs::write(&path, join(&stripped)).unwrap();
    let report = assert_broken(&env, &session, Some(1), "stripped");
    assert_eq!(report["broken"]["kind"], "edited", "{report}");

    crate::audit_chain::scripted_session_continued(&env, &session);
    assert_broken(&env, &session, Some(1), "stripped, then a run");
}

#[test]
fn a_deleted_or_emptied_log_is_broken_while_the_history_holds_the_turns() {
    let (env, session) = env_with_session("gone");
    let path = audit_file(&env, &session);
    std::fs::write(&path, b"").unwrap();
    let report = assert_broken(&env, &session, None, "emptied");
    assert_eq!(report["broken"]["kind"], "history-ahead", "{report}");
    std::fs::remove_file(&path).unwrap();
    let report = assert_broken(&env, &session, None, "deleted");
    assert_eq!(report["broken"]["kind"], "missing", "{report}");
    let out = env.run(&["audit", &session, "--json"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn a_deleted_or_rewritten_turn_end_head_is_broken() {
    let (env, session) = env_with_session("headfile");
    let path = audit_file(&env, &session);
    let head = path.with_file_name("audit.head");
    let original = std::fs::read(&head).unwrap();
    std::fs::remove_file(&head).unwrap();
    let report = assert_broken(&env, &session, None, "audit.head deleted");
    assert_eq!(report["broken"]["kind"], "missing", "{report}");
    // The same record number with another hash: one of the two was rewritten.
    let mut value: Value = serde_json::from_slice(&original).unwrap();
    value["hash"] = json!("0".repeat(64));
    std::fs::write(&head, value.to_string()).unwrap();
    assert_broken(&env, &session, None, "audit.head rewritten");
    // Garbage or a FIFO in its place: an error naming it, no hang.
    std::fs::write(&head, b"garbage").unwrap();
    let out = run_quick(&env, &["audit", "verify", &session]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        format!("{}{}", stdout(&out), stderr(&out)).contains("audit.head"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    std::fs::remove_file(&head).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&head)
        .status()
        .unwrap();
    assert!(status.success());
    let out = run_quick(&env, &["audit", "verify", &session]);
    assert_ne!(out.status.code(), Some(0));
    std::fs::remove_file(&head).unwrap();
    std::fs::write(&head, &original).unwrap();
    assert_eq!(verify(&env, &session).0, Some(0));
}

/// The sequence number of the last chain head the session's history recorded at a commit.
pub(crate) fn last_recorded_head(env: &TestEnv, session: &str) -> u64 {
    let history = env
        .state_home()
        .join("sessions")
        .join(session)
        .join("history.jsonl");
    std::fs::read_to_string(history)
        .unwrap()
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Value>(l).ok()?["audit"]["seq"].as_u64())
        .unwrap()
}

#[test]
fn records_cut_from_the_end_or_the_chain_recomputed_disagree_with_the_history() {
    let (env, session) = env_with_session("anchored");
    let path = audit_file(&env, &session);
    let original = std::fs::read(&path).unwrap();
    let records = lines(&original);

    // The log cut back to before the last record the history recorded: a chain whole on its
    // own.
    let recorded = last_recorded_head(&env, &session) as usize;
    assert!(recorded > 0 && recorded < records.len(), "{recorded}");
    std::fs::write(&path, join(&records[..recorded])).unwrap();
    let report = assert_broken(&env, &session, None, "records cut from the end");
    assert_eq!(report["broken"]["kind"], "history-ahead", "{report}");
    // The head named is the last one the session recorded: at the turn's end, in audit.head.
    assert_eq!(report["broken"]["recorded"], records.len() - 1, "{report}");

    // Record 1's content changed and every hash from it on recomputed: a chain that is whole
    // on its own.
    let anchor = anchor_of(&env, &session);
    let mut edited = records.clone();
    let text = String::from_utf8(edited[1].clone()).unwrap();
    edited[1] = text
        .replacen("\"event\":{", "\"event\":{\"x\":1,", 1)
        .into_bytes();
    let rechained = rechain(&edited, &anchor);
    std::fs::write(&path, join(&rechained)).unwrap();
    let report = assert_broken(&env, &session, None, "chain recomputed");
    assert_eq!(report["broken"]["kind"], "history-mismatch", "{report}");

    // The recomputation itself is right: the same log checked alone (no history) is whole.
    std::fs::write(&path, &original).unwrap();
    assert_eq!(verify(&env, &session).0, Some(0));
}

/// The session's chain anchor, as `docs/audit.md` defines it.
fn anchor_of(env: &TestEnv, session: &str) -> String {
    let history = env
        .state_home()
        .join("sessions")
        .join(session)
        .join("history.jsonl");
    let text = std::fs::read_to_string(history).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let sum = header["sum"].as_str().unwrap_or_default();
    hex(&Sha256::new()
        .chain_update(b"warden audit chain\0")
        .chain_update(session.as_bytes())
        .chain_update(b"\0")
        .chain_update(sum.as_bytes())
        .finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every line's `prev` and `hash` recomputed under `anchor`, as a writer would.
fn rechain(lines: &[Vec<u8>], anchor: &str) -> Vec<Vec<u8>> {
    let mut prev = anchor.to_owned();
    lines
        .iter()
        .map(|line| {
            let text = String::from_utf8(line.clone()).unwrap();
            let at = text.rfind(",\"hash\":\"").unwrap();
            let body = &text[..at];
            let old_prev = body.rfind(",\"prev\":\"").unwrap();
            let body = format!("{},\"prev\":\"{prev}\"}}", &body[..old_prev]);
            let hash = hex(&Sha256::new()
                .chain_update(anchor.as_bytes())
                .chain_update(body.as_bytes())
                .finalize());
            prev = hash.clone();
            format!("{},\"hash\":\"{hash}\"}}", &body[..body.len() - 1]).into_bytes()
        })
        .collect()
}

/// `warden ARGS`, which must end within [`QUICK`].
fn run_quick(env: &TestEnv, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.args(args);
    output_within(cmd, QUICK)
}

#[test]
fn a_fifo_or_dev_zero_as_the_log_is_refused_without_hanging() {
    let (env, session) = env_with_session("fifo");
    let path = audit_file(&env, &session);
    std::fs::remove_file(&path).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    for args in [
        vec!["audit", "verify", session.as_str()],
        vec!["audit", session.as_str()],
    ] {
        let out = run_quick(&env, &args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            text.contains("a FIFO") && text.contains(&path.display().to_string()),
            "{args:?}: {text}"
        );
    }
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let out = run_quick(&env, &["audit", "verify", &session]);
    assert_ne!(out.status.code(), Some(0));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("a symbolic link"), "{text}");
}

#[test]
fn a_run_does_not_append_through_a_symlinked_log() {
    let (env, session) = env_with_session("link");
    let path = audit_file(&env, &session);
    let elsewhere = env.root_path().join("elsewhere.jsonl");
    std::fs::rename(&path, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    let before = std::fs::read(&elsewhere).unwrap();

    let server = warden_tests::mock_server::MockServer::start().unwrap();
    server.push(warden_tests::mock_server::Reply::text("again"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--session", &session, "more"]);
    let out = output_within(cmd, QUICK);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stderr(&out).contains("a symbolic link"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&elsewhere).unwrap(), before);
    assert!(is_symlink(&path));
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[test]
fn exported_records_carry_their_seq_and_hash() {
    let (env, session) = env_with_session("export");
    let out = env.run(&["audit", &session, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let tools = value["turns"][0]["tools"].as_array().unwrap().clone();
    assert!(!tools.is_empty(), "{value}");
    let records = lines(&std::fs::read(audit_file(&env, &session)).unwrap());
    for tool in tools {
        let seq = tool["seq"].as_u64().unwrap_or_else(|| panic!("{tool}"));
        let line: Value = serde_json::from_slice(&records[seq as usize]).unwrap();
        assert_eq!(tool["hash"], line["hash"], "{tool}");
        assert_eq!(line["event"]["type"], json!("tool_call"), "{line}");
    }
}

/// Rewrites `session` as a warden from before the chain left it: its history of minor version 1
/// without recorded chain heads (each line's checksum sealed again), its audit log without
/// chain fields, holding only the lines `keep` accepts.
pub(crate) fn as_written_before_the_chain(
    env: &TestEnv,
    session: &str,
    keep: impl Fn(&str) -> bool,
) {
    let dir = env.state_home().join("sessions").join(session);
    let history = std::fs::read_to_string(dir.join("history.jsonl")).unwrap();
    let old: String = history
        .lines()
        .map(|line| {
            let body = &line[..line.rfind(",\"sum\":\"").unwrap()];
            let mut body = body.replacen(",\"minor\":2", ",\"minor\":1", 1).replacen(
                ",\"minor\":3",
                ",\"minor\":1",
                1,
            );
            if let Some(at) = body.find(",\"audit\":{") {
                let end = at + body[at..].find('}').unwrap() + 1;
                body.replace_range(at..end, "");
            }
            body.push('}');
            let sum = hex(&Sha256::digest(body.as_bytes())[..8]);
            format!("{},\"sum\":\"{sum}\"}}\n", &body[..body.len() - 1])
        })
        .collect();
    std::fs::write(dir.join("history.jsonl"), old).unwrap();
    // Nor did it keep the head of each turn's end.
    let _ = std::fs::remove_file(dir.join("audit.head"));
    let audit = std::fs::read_to_string(dir.join("audit.jsonl")).unwrap();
    let old: String = audit
        .lines()
        .filter(|l| keep(l))
        .map(|line| {
            let mut v: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
            for key in ["seq", "prev", "hash"] {
                v.remove(key);
            }
            format!("{}\n", Value::Object(v))
        })
        .collect();
    std::fs::write(dir.join("audit.jsonl"), old).unwrap();
}

#[test]
fn a_session_written_before_the_chain_still_reads_as_unchained() {
    let (env, session) = env_with_session("legacy");
    as_written_before_the_chain(&env, &session, |_| true);
    let out = env.run(&["session", "verify", &session]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let (code, report) = verify(&env, &session);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["status"], "unchained", "{report}");
    let out = env.run(&["audit", &session, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("write_file"), "{}", stdout(&out));
}
