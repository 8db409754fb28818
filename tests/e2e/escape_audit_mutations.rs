//! Every single-record mutation of a real session's audit log, at every place: a record
//! inserted again, removed, swapped with the next, a field changed, and the log cut after it.
//! `warden audit verify` must fail on each without a key, given the session's history and its
//! `audit.head` (the head at each turn's end, so the records a turn writes after its last
//! commit are covered too); and with `--key` after `audit sign`, on every record up to the
//! signed head.

use serde_json::{Value, json};

use crate::audit_chain::{audit_file, join, lines, scripted_session, verify};
use crate::support::{TestEnv, stderr, stdout};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// Each single-record mutation of `records` at record `i`: its name and the log it leaves.
fn mutations(records: &[Vec<u8>], i: usize) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut inserted = records.to_vec();
    inserted.insert(i + 1, records[i].clone());
    out.push((
        format!("record {i} inserted again after itself"),
        join(&inserted),
    ));
    if i > 0 {
        let mut earlier = records.to_vec();
        earlier.insert(i, records[i - 1].clone());
        out.push((
            format!("record {} inserted again at {i}", i - 1),
            join(&earlier),
        ));
    }
    let mut removed = records.to_vec();
    removed.remove(i);
    out.push((format!("record {i} removed"), join(&removed)));
    if i + 1 < records.len() {
        let mut swapped = records.to_vec();
        swapped.swap(i, i + 1);
        out.push((format!("records {i} and {} swapped", i + 1), join(&swapped)));
    }
    let mut changed = records.to_vec();
    let text = String::from_utf8(changed[i].clone()).unwrap();
    let at = text.find("\"ts\":\"").unwrap() + 6;
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    changed[i] = bytes;
    out.push((format!("record {i}'s ts changed"), join(&changed)));
    out.push((
        format!("the log cut before record {i}"),
        join(&records[..i]),
    ));
    out
}

#[test]
fn every_single_record_mutation_is_detected_given_the_history_or_a_key() {
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{AUTO_EDIT}"));
    let session = scripted_session(&env, "mutate");
    let path = audit_file(&env, &session);
    let original = std::fs::read(&path).unwrap();
    let records = lines(&original);

    let keys = env.root_path().join("keys");
    let out = env.run(&["plugin", "keygen", &keys.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let key = |name: &str| keys.join(name).to_string_lossy().into_owned();
    let out = env.run(&[
        "audit",
        "sign",
        &session,
        "--key",
        &key("warden-signing.key"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let public = key("warden-signing.pub");

    let mut checked = 0;
    for i in 0..records.len() {
        for (case, bytes) in mutations(&records, i) {
            std::fs::write(&path, &bytes).unwrap();
            let (code, report) = verify(&env, &session);
            assert_eq!(code, Some(1), "{case}, no key: {report}");
            assert_eq!(report["status"], json!("broken"), "{case}: {report}");
            let out = env.run(&["audit", "verify", &session, "--key", &public, "--json"]);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{case}, --key: {}",
                stdout(&out)
            );
            let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
            assert_eq!(value["ok"], json!(false), "{case}: {value}");
            checked += 1;
        }
    }
    assert!(checked >= 5 * records.len(), "{checked}");

    std::fs::write(&path, &original).unwrap();
    assert_eq!(verify(&env, &session).0, Some(0));
    let out = env.run(&["audit", "verify", &session, "--key", &public]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}
