//! `warden undo` over what a `shell` command changed, through the real binary: the workspace
//! is scanned around the command, files it created are removed, files it changed or deleted
//! are put back byte for byte; gitignored files are neither recorded nor undone.

use serde_json::json;

use crate::shell::{run_calls, sandbox_missing};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const OPENAI: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// Not valid UTF-8 nor ending in a newline.
const A_BYTES: &[u8] = b"keep a\r\n\xff\xfe tail";
const B_BYTES: &[u8] = b"bee\n\x00\x01 bytes";

fn skip(name: &str) -> bool {
    match sandbox_missing() {
        Some(missing) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{name}: the sandbox cannot be built: {missing}"
            );
            eprintln!("SKIP {name}: the sandbox cannot be built here: {missing}");
            true
        }
        None => false,
    }
}

fn undo(env: &TestEnv) -> (Option<i32>, String, String) {
    let mut cmd = env.command();
    cmd.arg("undo");
    let out = output_within(cmd, HANG_LIMIT);
    (out.status.code(), stdout(&out), stderr(&out))
}

#[test]
fn undo_puts_back_what_a_shell_command_created_changed_and_deleted() {
    if skip("undo_puts_back_what_a_shell_command_created_changed_and_deleted") {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("a.txt", A_BYTES);
    env.write("b.txt", B_BYTES);
    env.write("same.txt", "untouched\n");
    let (_, id) = run_calls(
        &env,
        &[(
            "c1",
            json!({"command": "echo fresh > new.txt; echo changed > a.txt; rm b.txt"}),
        )],
        &[],
    );
    let ws = env.workspace();
    assert!(ws.join("new.txt").is_file());
    assert!(!ws.join("b.txt").exists());

    let (code, out, err) = undo(&env);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("new.txt: removed"), "{out}");
    assert!(out.contains("a.txt: restored"), "{out}");
    assert!(out.contains("b.txt: restored"), "{out}");
    assert!(!out.contains("same.txt"), "{out}");
    assert!(!ws.join("new.txt").exists());
    assert_eq!(std::fs::read(ws.join("a.txt")).unwrap(), A_BYTES);
    assert_eq!(std::fs::read(ws.join("b.txt")).unwrap(), B_BYTES);

    let mut cmd = env.command();
    cmd.args(["session", "export", &id]);
    let history = stdout(&output_within(cmd, HANG_LIMIT));
    assert!(
        history.contains("The person undid the file changes"),
        "{history}"
    );
    assert!(history.contains("b.txt: restored"), "{history}");
}

#[test]
fn a_gitignored_file_the_command_changes_is_not_recorded_nor_undone() {
    if skip("a_gitignored_file_the_command_changes_is_not_recorded_nor_undone") {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write(".gitignore", "build.log\n");
    env.write("build.log", "old log\n");
    env.write("tracked.txt", "old\n");
    run_calls(
        &env,
        &[(
            "c1",
            json!({"command": "echo new log > build.log; echo new > tracked.txt; cat .env 2>/dev/null; echo x > .env 2>/dev/null; true"}),
        )],
        &[],
    );
    let (code, out, err) = undo(&env);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("tracked.txt: restored"), "{out}");
    assert!(!out.contains("build.log"), "{out}");
    assert!(!out.contains(".env"), "{out}");
    let ws = env.workspace();
    assert_eq!(
        std::fs::read_to_string(ws.join("build.log")).unwrap(),
        "new log\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("tracked.txt")).unwrap(),
        "old\n"
    );
}
