//! `warden undo` over a `shell` command, through the real binary: file modes come back (a
//! deleted executable is restored executable, a `chmod` is undone) and so do directories the
//! command removed, empty ones included (one it created stays).

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::shell::{OPENAI, run_calls, sandbox_missing};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o7777
}

#[test]
fn undo_puts_back_file_modes_and_empty_directories() {
    if let Some(missing) = sandbox_missing() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the sandbox cannot be built: {missing}"
        );
        eprintln!("SKIP undo_puts_back_file_modes_and_empty_directories: {missing}");
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let ws = env.workspace();
    let script = env.write("tools/run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
    let plain = env.write("notes.txt", "notes\n");
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::create_dir_all(ws.join("empty/inner")).unwrap();
    std::fs::set_permissions(ws.join("empty"), std::fs::Permissions::from_mode(0o700)).unwrap();
    run_calls(
        &env,
        &[(
            "c1",
            json!({"command": "rm tools/run.sh && chmod 600 notes.txt && rm -r empty && mkdir -p made/deeper"}),
        )],
        &[],
    );
    assert!(!script.exists());
    assert_eq!(mode(&plain), 0o600);
    assert!(!ws.join("empty").exists());
    assert!(ws.join("made/deeper").is_dir());

    let mut cmd = env.command();
    cmd.arg("undo");
    let out = output_within(cmd, HANG_LIMIT);
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{text}{err}");
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "#!/bin/sh\necho hi\n"
    );
    assert_eq!(mode(&script), 0o750, "the script's mode: {text}");
    assert_eq!(mode(&plain), 0o640, "the chmod undone: {text}");
    assert!(ws.join("empty/inner").is_dir(), "{text}");
    assert_eq!(mode(&ws.join("empty")), 0o700, "{text}");
    // A directory the command made stays, as it does for the files put back in it.
    assert!(ws.join("made/deeper").is_dir(), "{text}");
}
