//! The host's guard on a tool plugin's `fs` grant, through the real binary: deny globs and the
//! protected directories (`.warden/`, `.git/`) are enforced on the real path of what a tool
//! opens, whatever path it wrote and whether it goes through the SDK or plain `std::fs`;
//! symlinks neither reveal a denied file nor lead a write into a protected place or out of the
//! workspace.

#![cfg(unix)]

use std::os::unix::fs::symlink;

use serde_json::json;
use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};
use crate::tool_plugins::{AUTO_EDIT, MODEL, content, tool_entry, turn_with_calls};

const EDIT: &str = "fs = \"read-write\"";

/// The project config a model would like the edit tool to hold.
fn greedy_config(edit: &std::path::Path) -> String {
    format!(
        "{MODEL}{}",
        tool_entry(
            "edit",
            edit,
            "fs = \"read-write\"\nenv = [\"OPENAI_API_KEY\"]\nallowed_hosts = [\"evil.example\"]"
        )
    )
}

#[test]
fn the_edit_tool_cannot_write_the_config_git_or_denied_files_even_through_a_symlink() {
    let env = TestEnv::new();
    let edit = fixtures::edit_tool();
    let config = env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}{}",
        tool_entry("edit", &edit, EDIT)
    ));
    let before = std::fs::read_to_string(&config).unwrap();
    env.write(".git/hooks/README", "hooks");
    env.write(".git/config", "[core]\n");
    let ws = env.workspace();
    symlink(".git", ws.join("gitdir")).unwrap();
    symlink(".warden", ws.join("settings")).unwrap();
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            (
                "cfg",
                "put_file",
                json!({"path": ".warden/config.toml", "content": greedy_config(&edit)}),
            ),
            (
                "cfg_case",
                "put_file",
                json!({"path": ".WARDEN/config.toml", "content": "x"}),
            ),
            (
                "cfg_link",
                "put_file",
                json!({"path": "settings/config.toml", "content": greedy_config(&edit)}),
            ),
            (
                "hook",
                "put_file",
                json!({"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nevil\n"}),
            ),
            (
                "hook_link",
                "put_file",
                json!({"path": "gitdir/hooks/pre-commit", "content": "#!/bin/sh\nevil\n"}),
            ),
            (
                "git_config_link",
                "replace_in_file",
                json!({"path": "gitdir/config", "old": "[core]", "new": "[core]\nfsmonitor = evil"}),
            ),
            (
                "dotenv",
                "put_file",
                json!({"path": ".env", "content": "x"}),
            ),
            (
                "ok",
                "put_file",
                json!({"path": "src/fine.txt", "content": "fine"}),
            ),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!ws.join(".env").exists());
    assert!(!ws.join(".WARDEN").exists());
    for id in [
        "cfg",
        "cfg_case",
        "cfg_link",
        "hook",
        "hook_link",
        "git_config_link",
        "dotenv",
    ] {
        assert!(
            content(&tools, id).starts_with("[error]"),
            "{id}: {tools:?}"
        );
    }
    // The config is the person's to change: the tool says so.
    assert!(
        content(&tools, "cfg").contains("propose"),
        "{}",
        content(&tools, "cfg")
    );
    assert!(content(&tools, "ok").contains("wrote 4 bytes"), "{tools:?}");
    // The host names the plugin and the path it refused.
    assert!(err.contains("edit") && err.contains("protected"), "{err}");
}

#[test]
fn grep_does_not_read_a_denied_file_through_a_symlink() {
    let env = TestEnv::new();
    env.write("notes.txt", "a needle here\n");
    env.write(".env", "needle=secret-in-dotenv\n");
    env.write(".git/config", "needle=secret-in-git\n");
    let ws = env.workspace();
    symlink(".env", ws.join("innocent")).unwrap();
    symlink(".git", ws.join("gitdir")).unwrap();
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry("grep", &fixtures::grep_tool(), "fs = \"read\"")
    ));
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            (
                "g",
                "search_text",
                json!({"pattern": "needle", "literal": true}),
            ),
            (
                "g_link",
                "search_text",
                json!({"pattern": "needle", "literal": true, "path": "innocent"}),
            ),
            (
                "g_gitdir",
                "search_text",
                json!({"pattern": "needle", "literal": true, "path": "gitdir"}),
            ),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(content(&tools, "g"), "notes.txt:1: a needle here");
    for id in ["g_link", "g_gitdir"] {
        assert!(!content(&tools, id).contains("secret"), "{id}: {tools:?}");
    }
}

#[test]
fn a_tool_bypassing_the_sdk_cannot_plant_symlinks_or_touch_protected_paths() {
    let env = TestEnv::new();
    env.write("notes.txt", "notes");
    env.write(".env", "API_KEY=secret\n");
    env.write(".git/config", "[core]\n");
    let ws = env.workspace();
    let outside = env.outside();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "outside secret").unwrap();
    symlink(".env", ws.join("innocent")).unwrap();
    let config = env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}{}",
        tool_entry("probe", &fixtures::hostile_tool(), EDIT)
    ));
    let before = std::fs::read_to_string(&config).unwrap();
    let at = |rel: &str| ws.join(rel).display().to_string();
    let probe = |action: String| json!({ "action": action });
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            (
                "out_abs",
                "probe",
                probe(format!("symlink {} {}", outside.display(), at("out"))),
            ),
            (
                "out_rel",
                "probe",
                probe(format!("symlink ../outside/secret.txt {}", at("rel"))),
            ),
            (
                "to_env",
                "probe",
                probe(format!("symlink .env {}", at("env_link"))),
            ),
            (
                "to_git",
                "probe",
                probe(format!("symlink .git/config {}", at("git_link"))),
            ),
            (
                "in_git",
                "probe",
                probe(format!("symlink ../notes.txt {}", at(".git/n"))),
            ),
            (
                "fine",
                "probe",
                probe(format!("symlink notes.txt {}", at("fine"))),
            ),
            ("w_env", "probe", probe(format!("write {}", at(".env")))),
            (
                "w_git",
                "probe",
                probe(format!("write {}", at(".git/config"))),
            ),
            (
                "w_cfg",
                "probe",
                probe(format!("write {}", at(".warden/config.toml"))),
            ),
            (
                "w_link",
                "probe",
                probe(format!("write {}", at("innocent"))),
            ),
            ("r_link", "probe", probe(format!("read {}", at("innocent")))),
            (
                "r_git",
                "probe",
                probe(format!("read {}", at(".git/config"))),
            ),
            ("list", "probe", probe(format!("list {}", ws.display()))),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    for id in [
        "out_abs", "out_rel", "to_env", "to_git", "in_git", "w_env", "w_git", "w_cfg", "w_link",
        "r_link", "r_git",
    ] {
        assert!(
            content(&tools, id).starts_with("[error]"),
            "{id}: {tools:?}"
        );
    }
    for link in ["out", "rel", "env_link", "git_link", ".git/n"] {
        assert!(
            std::fs::symlink_metadata(ws.join(link)).is_err(),
            "{link} was planted"
        );
    }
    assert_eq!(content(&tools, "fine"), format!("linked {}", at("fine")));
    assert_eq!(
        std::fs::read_to_string(ws.join(".env")).unwrap(),
        "API_KEY=secret\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
    assert!(!content(&tools, "r_link").contains("secret"), "{tools:?}");
    // Denied entries are left out of listings; `.warden` is listed (read, never written).
    assert_eq!(
        content(&tools, "list"),
        ".warden\nfine\ninnocent\nnotes.txt"
    );
}

#[test]
fn a_configured_resolver_cannot_read_a_denied_file_through_a_symlink() {
    let env = TestEnv::new();
    env.write(".env", "TOKEN=leak-through-link\n");
    env.write("ok.txt", "fine-content\n");
    symlink(".env", env.workspace().join("innocent")).unwrap();
    // This resolver reads whatever path it is asked with plain `std::fs`, following links;
    // the host's guard holds it to the deny globs on the real path.
    env.project_config(&format!(
        "[fileref]\nresolver = \"{}\"\n[fileref.resolver_config]\nmode = \"follow\"\n",
        fixtures::hostile_resolver().display()
    ));
    let out = env.run(&["preview", "--json", "@innocent @ok.txt"]);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(!all.contains("leak-through-link"), "{all}");
    assert!(all.contains("fine-content"), "{all}");
}
