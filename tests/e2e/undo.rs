//! `warden undo` through the real binary: a turn's writes and edits put back (created files
//! removed, edited ones restored byte for byte), the model told in the history, a file changed
//! by hand since refused unless forced, and several turns undone newest first.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const OPENAI: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"auto-edit\"\n";

/// One turn (continuing the workspace's session unless it is the first) in which the model
/// makes `calls`; the session id.
fn turn(env: &TestEnv, first: bool, calls: &[(&str, &str, Value)]) -> String {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("", calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run");
    if !first {
        cmd.arg("--continue");
    }
    cmd.args(["--json", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    value["session"].as_str().unwrap().to_owned()
}

/// `warden undo ARGS`: exit code, stdout, stderr.
fn undo(env: &TestEnv, args: &[&str]) -> (Option<i32>, String, String) {
    let mut cmd = env.command();
    cmd.arg("undo").args(args);
    let out = output_within(cmd, HANG_LIMIT);
    (out.status.code(), stdout(&out), stderr(&out))
}

fn export(env: &TestEnv, id: &str) -> String {
    let mut cmd = env.command();
    cmd.args(["session", "export", id]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
}

/// Not valid UTF-8 nor ending in a newline: restored exactly all the same.
const ORIGINAL: &[u8] = b"keep me\r\nold line\n\xff\xfe tail";

#[test]
fn undo_removes_created_files_and_restores_edited_ones_and_tells_the_model() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("notes.txt", "alpha\nbeta\n");
    std::fs::write(env.workspace().join("raw.bin"), ORIGINAL).unwrap();
    let id = turn(
        &env,
        true,
        &[
            (
                "w",
                "write_file",
                json!({"path": "src/new.rs", "content": "fn f() {}\n"}),
            ),
            (
                "e",
                "edit_file",
                json!({"path": "notes.txt", "old_string": "beta", "new_string": "gamma"}),
            ),
            (
                "o",
                "write_file",
                json!({"path": "raw.bin", "content": "replaced"}),
            ),
        ],
    );
    assert!(env.workspace().join("src/new.rs").is_file());
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("notes.txt")).unwrap(),
        "alpha\ngamma\n"
    );
    // The checkpoints live in the session's directory.
    assert!(
        env.state_home()
            .join("sessions")
            .join(&id)
            .join("checkpoints")
            .is_dir()
    );

    let (code, out, err) = undo(&env, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("src/new.rs: removed"), "{out}");
    assert!(out.contains("notes.txt: restored"), "{out}");
    assert!(out.contains("raw.bin: restored"), "{out}");
    // Newest first: raw.bin (the last call) before src/new.rs (the first).
    assert!(
        out.find("raw.bin").unwrap() < out.find("src/new.rs").unwrap(),
        "{out}"
    );
    assert!(!env.workspace().join("src/new.rs").exists());
    assert_eq!(
        std::fs::read(env.workspace().join("notes.txt")).unwrap(),
        b"alpha\nbeta\n"
    );
    assert_eq!(
        std::fs::read(env.workspace().join("raw.bin")).unwrap(),
        ORIGINAL
    );

    let history = export(&env, &id);
    assert!(
        history.contains("The person undid the file changes"),
        "{history}"
    );
    assert!(history.contains("src/new.rs: removed"), "{history}");

    // Nothing left to undo in that session.
    let (code, out, _) = undo(&env, &["--session", &id]);
    assert_eq!(code, Some(0));
    assert!(out.contains("no file changes to undo"), "{out}");
}

#[test]
fn a_file_changed_by_hand_since_is_refused_unless_forced() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("a.txt", "one\n");
    turn(
        &env,
        true,
        &[(
            "w",
            "write_file",
            json!({"path": "a.txt", "content": "two\n"}),
        )],
    );
    env.write("a.txt", "three, by hand\n");
    let (code, out, err) = undo(&env, &[]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("a.txt: not restored: changed since the turn"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "three, by hand\n"
    );
    let (code, out, err) = undo(&env, &["--force"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "one\n"
    );
}

#[test]
fn two_turns_are_undone_newest_first() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("a.txt", "v0\n");
    let id = turn(
        &env,
        true,
        &[(
            "w",
            "write_file",
            json!({"path": "a.txt", "content": "v1\n"}),
        )],
    );
    let again = turn(
        &env,
        false,
        &[
            (
                "w",
                "write_file",
                json!({"path": "a.txt", "content": "v2\n"}),
            ),
            (
                "n",
                "write_file",
                json!({"path": "b.txt", "content": "new\n"}),
            ),
        ],
    );
    assert_eq!(id, again);
    let (code, out, err) = undo(&env, &["--turns", "2"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        &lines[..3],
        [
            "b.txt: removed (the turn created it)",
            "a.txt: restored",
            "a.txt: restored"
        ],
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "v0\n"
    );
    assert!(!env.workspace().join("b.txt").exists());
    assert!(out.contains("undid 2 turns"), "{out}");

    let (code, _, err) = undo(&env, &["--turns", "0"]);
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn a_file_over_the_checkpoint_cap_is_named_as_not_saved() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let big = vec![b'x'; 16 * 1024 * 1024 + 1];
    std::fs::write(env.workspace().join("big.txt"), &big).unwrap();
    turn(
        &env,
        true,
        &[
            (
                "w",
                "write_file",
                json!({"path": "big.txt", "content": "small\n"}),
            ),
            (
                "n",
                "write_file",
                json!({"path": "n.txt", "content": "new\n"}),
            ),
        ],
    );
    let (code, out, err) = undo(&env, &[]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("big.txt: not restored: its previous content was over the checkpoint cap"),
        "{out}"
    );
    assert!(out.contains("n.txt: removed"), "{out}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("big.txt")).unwrap(),
        "small\n"
    );
    // No blob of it was kept.
    let blobs = env.state_home().join("sessions");
    let kept: u64 = walk(&blobs);
    assert!(kept < 1024 * 1024, "{kept} bytes kept");
    // That turn is done with: nothing more to undo.
    let (code, out, _) = undo(&env, &[]);
    assert_eq!(code, Some(0));
    assert!(out.contains("no file changes to undo"), "{out}");
}

/// Total bytes of the files below `dir`.
fn walk(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                walk(&e.path())
            } else {
                meta.len()
            }
        })
        .sum()
}
