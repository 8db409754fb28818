//! `warden rules check` through the real binary: a command its rules allow that asks because
//! of an output redirection names that redirection.

use crate::support::{TestEnv, stderr, stdout};

#[test]
fn a_redirection_that_makes_it_ask_is_named() {
    let env = TestEnv::new();
    let out = env.run(&["rules", "check", "--", "echo hi > out.txt"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let verdict = text.lines().last().unwrap();
    assert!(verdict.starts_with("verdict: ask"), "{text}");
    assert!(
        verdict.contains("writes `out.txt` through a redirection"),
        "{text}"
    );
    // Without one, nothing is said of redirections.
    let out = env.run(&["rules", "check", "--", "echo hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("redirection"), "{}", stdout(&out));
}
