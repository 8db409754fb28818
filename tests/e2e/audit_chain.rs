//! `warden audit verify` on the audit logs of real sessions made by scripted `warden run`s:
//! an intact log verifies, and each single tampering (a byte changed, a record deleted, two
//! swapped, the file cut mid-record, a record appended from another session) is named, exit 1.
//! A log whose chain fields were stripped is broken (see `escape_audit`): the history says a
//! chaining warden wrote it.

use std::path::PathBuf;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, run_go_json, stderr, stdout};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// One `warden run` whose model writes and reads a few files; its session id.
pub(crate) fn scripted_session(env: &TestEnv, tag: &str) -> String {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            (
                "c1",
                "write_file",
                json!({"path": format!("{tag}-a.txt"), "content": "one\n"}),
            ),
            (
                "c2",
                "write_file",
                json!({"path": format!("{tag}-b.txt"), "content": "two\n"}),
            ),
            ("c3", "read_file", json!({"path": format!("{tag}-a.txt")})),
        ],
    ));
    server.push(Reply::text("done"));
    run_go_json(env, &server.openai_url()).1
}

pub(crate) fn audit_file(env: &TestEnv, session: &str) -> PathBuf {
    env.state_home()
        .join("sessions")
        .join(session)
        .join("audit.jsonl")
}

/// `audit verify SESSION --json`: exit code and the session's report.
pub(crate) fn verify(env: &TestEnv, session: &str) -> (Option<i32>, Value) {
    let out = env.run(&["audit", "verify", session, "--json"]);
    let value: Value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    (out.status.code(), value["sessions"][0].clone())
}

pub(crate) fn lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

pub(crate) fn join(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

#[test]
fn audit_verify_names_each_tampering_of_a_real_session() {
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{AUTO_EDIT}"));
    let session = scripted_session(&env, "first");
    let other = scripted_session(&env, "second");
    let path = audit_file(&env, &session);
    let original = std::fs::read(&path).unwrap();
    let records = lines(&original);
    assert!(records.len() >= 6, "{}", String::from_utf8_lossy(&original));

    // Intact: exit 0 and one line per session of the workspace.
    let out = env.run(&["audit", "verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines()
            .all(|l| l.contains(": intact: ") && l.contains("records")),
        "{text}"
    );
    let (code, report) = verify(&env, &session);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["status"], "intact", "{report}");
    assert_eq!(report["records"], records.len() as u64, "{report}");

    let cases: Vec<(&str, Vec<u8>, Value)> = vec![
        (
            "one byte changed",
            {
                let mut bytes = original.clone();
                let start: usize = records[..3].iter().map(|l| l.len() + 1).sum();
                let at = start
                    + records[3]
                        .windows(6)
                        .position(|w| w == b"\"type\"")
                        .unwrap()
                    + 9;
                bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
                bytes
            },
            json!({"kind": "edited", "line": 4}),
        ),
        (
            "a record deleted",
            {
                let mut l = records.clone();
                l.remove(2);
                join(&l)
            },
            json!({"kind": "removed", "line": 3, "from": 2, "to": 2}),
        ),
        (
            "two records swapped",
            {
                let mut l = records.clone();
                l.swap(2, 3);
                join(&l)
            },
            json!({"kind": "reordered", "line": 3, "seq": 3, "expected": 2}),
        ),
        (
            "the file cut mid-record, at a record the history recorded",
            {
                let recorded = crate::escape_audit::last_recorded_head(&env, &session) as usize;
                let mut bytes = join(&records[..recorded]);
                bytes.extend_from_slice(&records[recorded][..records[recorded].len() / 2]);
                bytes
            },
            json!({"kind": "truncated"}),
        ),
        (
            "a record of another session appended",
            {
                let theirs = std::fs::read(audit_file(&env, &other)).unwrap();
                let mut l = records.clone();
                l.push(lines(&theirs).last().unwrap().clone());
                join(&l)
            },
            json!({"kind": "out-of-chain", "line": records.len() + 1, "session": other}),
        ),
    ];
    for (case, bytes, expected) in cases {
        std::fs::write(&path, &bytes).unwrap();
        let (code, report) = verify(&env, &session);
        assert_eq!(code, Some(1), "{case}: {report}");
        assert_eq!(report["status"], "broken", "{case}: {report}");
        for (key, value) in expected.as_object().unwrap() {
            assert_eq!(&report["broken"][key], value, "{case}: {report}");
        }
        let out = env.run(&["audit", "verify", &session]);
        assert_eq!(out.status.code(), Some(1), "{case}");
        assert!(
            stdout(&out).contains(": broken: "),
            "{case}: {}",
            stdout(&out)
        );
    }

    // Restored, it verifies again, and the next run's records extend the same chain.
    std::fs::write(&path, &original).unwrap();
    assert_eq!(verify(&env, &session).0, Some(0));
}

#[test]
fn a_signed_head_shows_records_removed_from_the_end_and_a_rewritten_chain() {
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{AUTO_EDIT}"));
    let session = scripted_session(&env, "signed");
    let keys = env.root_path().join("keys");
    let out = env.run(&["plugin", "keygen", &keys.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let secret = keys
        .join("warden-signing.key")
        .to_string_lossy()
        .into_owned();
    let public = keys
        .join("warden-signing.pub")
        .to_string_lossy()
        .into_owned();

    // Unsigned: `--key` refuses it.
    let out = env.run(&["audit", "verify", &session, "--key", &public]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("no signature"), "{}", stdout(&out));

    let out = env.run(&["audit", "sign", &session, "--key", &secret]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(": signed record "),
        "{}",
        stdout(&out)
    );
    let out = env.run(&["audit", "verify", &session, "--key", &public, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));

    // Another key does not verify it.
    let other_keys = env.root_path().join("other-keys");
    env.run(&["plugin", "keygen", &other_keys.to_string_lossy()]);
    let other = other_keys
        .join("warden-signing.pub")
        .to_string_lossy()
        .into_owned();
    let out = env.run(&["audit", "verify", &session, "--key", &other]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));

    // The last record removed (written after the last commit, so the history did not record
    // it; `audit.head` did): caught without a key.
    let path = audit_file(&env, &session);
    let original = std::fs::read(&path).unwrap();
    let records = lines(&original);
    assert!(crate::escape_audit::last_recorded_head(&env, &session) < records.len() as u64 - 1);
    std::fs::write(&path, join(&records[..records.len() - 1])).unwrap();
    let (code, report) = verify(&env, &session);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["broken"]["kind"], "history-ahead", "{report}");
    // And with `audit.head` rewritten to the record before (no secret is needed for that), the
    // chain and the history agree again: the signed head is what is not there.
    let head_file = path.with_file_name("audit.head");
    let before: Value = serde_json::from_slice(&records[records.len() - 2]).unwrap();
    std::fs::write(
        &head_file,
        json!({"seq": before["seq"], "hash": before["hash"]}).to_string(),
    )
    .unwrap();
    assert_eq!(verify(&env, &session).0, Some(0));
    let out = env.run(&["audit", "verify", &session, "--key", &public, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let broken = &value["sessions"][0]["broken"];
    assert_eq!(broken["kind"], "tail-removed", "{value}");
    assert_eq!(broken["signed"], records.len() as u64 - 1, "{value}");

    // Records appended after signing extend the chain past the signed head: still holds.
    std::fs::write(&path, &original).unwrap();
    scripted_session_continued(&env, &session);
    let out = env.run(&["audit", "verify", &session, "--key", &public]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// One more scripted turn in `session`.
pub(crate) fn scripted_session_continued(env: &TestEnv, session: &str) {
    let server = MockServer::start().unwrap();
    server.push(Reply::text("again"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--session", session, "more"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
