//! `warden chat` with `[audit] sign_key`: each session it leaves — by `/new`, and at the end —
//! has its audit head signed, so `warden audit verify --key` holds for both.

use crate::chat::{Terminal, skip};
use crate::support::{TestEnv, stderr, stdout};

#[test]
fn the_chat_signs_each_session_it_leaves() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let keys = env.root_path().join("operator-keys");
    let out = env.run(&["plugin", "keygen", &keys.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let secret = keys.join("warden-signing.key");
    let public = keys
        .join("warden-signing.pub")
        .to_string_lossy()
        .into_owned();
    env.user_config(&format!(
        "[audit]\nsign_key = {:?}\n",
        secret.display().to_string()
    ));
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");
    term.type_text("first question");
    term.press("Enter");
    term.wait_for_after("first question", "warden ›");
    term.type_text("/new");
    term.press("Enter");
    let screen = term.wait_for("the previous one is");
    assert!(screen.contains("audit head (record"), "{screen}");
    term.type_text("second question");
    term.press("Enter");
    term.wait_for_after("second question", "warden ›");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);

    let sessions = env.state_home().join("sessions");
    let ids: Vec<String> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    for id in &ids {
        assert!(
            sessions.join(id).join("audit.sig").is_file(),
            "{id} not signed"
        );
        let out = env.run(&["audit", "verify", id, "--key", &public]);
        assert_eq!(out.status.code(), Some(0), "{id}: {}", stdout(&out));
    }
}
