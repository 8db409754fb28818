//! Sandbox escape cases that hold whoever runs warden, root included: a sandboxed process can
//! neither take its mounts apart nor read the person's keyring, and holds no capability. Each
//! test drives the real binary with a scripted model (`shell` calls, or the tool of an MCP
//! server written with the official Python SDK, `tests/fixtures/mcp/probe.py`, granted
//! `fs = "read"` or `fs = "read-write"`), whose commands make the system calls themselves
//! through Python's `ctypes` (`tests/fixtures/escape/mounts.py`):
//!
//! - `open_tree(OPEN_TREE_CLONE)` of the workspace, then a read of the hidden `.env` through
//!   the clone;
//! - `mount_setattr` clearing `MOUNT_ATTR_RDONLY` on `.git` and `.warden`, then a hook in
//!   `.git/hooks/pre-commit`, `core.fsmonitor` in `.git/config` and `mode = "full-auto"` in
//!   `.warden/config.toml`;
//! - `umount2` of the cover over `.env`; a bind of the workspace without its covers; a tmpfs
//!   over `.git`;
//! - `keyctl` reading the session keyring, in which the test put a key before starting warden;
//! - the capability sets of `/proc/self/status`.
//!
//! The harm is checked after the fact: the person's own `git status` and `git commit`, outside
//! warden, run no planted code (no marker file appears), `.git/config` and
//! `.warden/config.toml` are unchanged, and neither secret reaches any result. The suite runs
//! as root and, in CI, again as an unprivileged user (`.ci/run`). Where this kernel cannot
//! build the sandbox, or a tool is missing, a test prints a SKIP line instead of passing
//! silently.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::mcp_client::{python, sandbox};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, warden_bin};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"full-auto\"\n\n";

/// The hidden file's content and the key's payload: neither may reach a result.
const DOTENV_SECRET: &str = "DOTENV-SECRET-7f3a";
const KEY_SECRET: &str = "KEYRING-SECRET-91c2";

/// The project's own configuration, which no command may change.
const PROJECT_CONFIG: &str = "# the project's own settings\n";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/escape/mounts.py")
}

/// `python3` (its real path), or `None` after a SKIP line.
fn interpreter(test: &str) -> Option<PathBuf> {
    let out = Command::new("python3")
        .args(["-c", "import ctypes, sys; print(sys.executable)"])
        .output();
    match out {
        Ok(out) if out.status.success() => Some(PathBuf::from(
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        )),
        _ => {
            eprintln!("SKIP {test}: python3 (with ctypes) is not installed");
            None
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=person",
            "-c",
            "user.email=person@example.com",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    out
}

/// A workspace that is a repository with one commit, a hidden `.env` and a trusted project
/// configuration; the directory where a planted hook would leave its marks (outside the
/// workspace: the sandbox cannot write there, the person's own git can).
struct Scene {
    env: TestEnv,
    marks: PathBuf,
    git_config: Vec<u8>,
}

impl Scene {
    fn new(extra_config: &str) -> Self {
        let env = TestEnv::new();
        env.user_config(&format!("{MODEL}{extra_config}"));
        let ws = env.workspace();
        git(&ws, &["init", "-q"]);
        env.write("README", "hello\n");
        git(&ws, &["add", "README"]);
        git(&ws, &["commit", "-q", "-m", "first"]);
        env.write(".env", format!("TOKEN={DOTENV_SECRET}\n"));
        env.project_config(PROJECT_CONFIG);
        let marks = env.root_path().join("marks");
        std::fs::create_dir_all(&marks).unwrap();
        let git_config = std::fs::read(ws.join(".git/config")).unwrap();
        Self {
            env,
            marks,
            git_config,
        }
    }

    /// The attacks, as `sh -c` commands run by `python` in the sandbox (ids prefixed `p`).
    fn attacks(&self, python: &Path) -> Vec<(String, String)> {
        let ws = self.env.workspace().display().to_string();
        let marks = self.marks.display().to_string();
        let run = format!("{} {}", python.display(), fixture().display());
        vec![
            ("caps".into(), "grep ^Cap /proc/self/status".into()),
            (
                "clone".into(),
                format!("{run} clone-read {ws} .env; cat {ws}/.env; echo end"),
            ),
            (
                "git".into(),
                format!(
                    "{run} rw {ws}/.git; cd {ws}; mkdir -p .git/hooks; echo '#!/bin/sh' > .git/hooks/pre-commit; echo 'touch {marks}/hook' >> .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; echo '[core]' >> .git/config; echo '\tfsmonitor = touch {marks}/fsmonitor' >> .git/config; echo end"
                ),
            ),
            (
                "warden".into(),
                format!(
                    "{run} rw {ws}/.warden; echo 'mode = \"full-auto\"' >> {ws}/.warden/config.toml; echo end"
                ),
            ),
            (
                "umount".into(),
                format!("{run} umount {ws}/.env; cat {ws}/.env; echo end"),
            ),
            (
                "bind".into(),
                format!(
                    "mkdir -p $TMPDIR/b; {run} bind {ws} $TMPDIR/b; cat $TMPDIR/b/.env; {run} tmpfs {ws}/.git; echo end"
                ),
            ),
            ("keys".into(), format!("{run} keys; echo end")),
            (
                "report".into(),
                format!("{run} rw {ws}/.git; echo x > {ws}/.git/planted; exit 1"),
            ),
        ]
    }

    /// One `warden run --mode full-auto` started with a key holding [`KEY_SECRET`] in a fresh
    /// session keyring, in which the model makes `calls` then answers `done`: each call's
    /// result by id.
    fn run(&self, python: &Path, calls: &[(String, &str, Value)]) -> HashMap<String, String> {
        let server = MockServer::start().unwrap();
        let calls: Vec<(&str, &str, Value)> = calls
            .iter()
            .map(|(id, tool, args)| (id.as_str(), *tool, args.clone()))
            .collect();
        server.push(Reply::tool_calls("", &calls));
        server.push(Reply::text("done"));
        let mut cmd = self.env.command_of(python);
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", server.openai_url())
            .arg(fixture())
            .args(["with-key", KEY_SECRET])
            .arg(warden_bin())
            .args(["run", "--json", "--mode", "full-auto", "go"]);
        let out = output_within(cmd, HANG_LIMIT);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let requests = server.requests();
        requests[1].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| {
                (
                    m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                    m["content"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    /// Every promise, checked on the results and after the fact.
    fn check(&self, results: &HashMap<String, String>) {
        let get = |id: &str| {
            results
                .get(id)
                .unwrap_or_else(|| panic!("no result for {id}: {results:?}"))
                .as_str()
        };
        for (id, result) in results {
            assert!(!result.contains(DOTENV_SECRET), "{id} read .env: {result}");
            assert!(!result.contains(KEY_SECRET), "{id} read the key: {result}");
            for call in [
                "open_tree: ok",
                "mount_setattr: ok",
                "umount2: ok",
                "mount bind: ok",
                "mount tmpfs: ok",
                "keyctl: ok",
            ] {
                assert!(!result.contains(call), "{id}: {call}: {result}");
            }
        }
        let caps = get("caps");
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            assert!(
                caps.contains(&format!("{set}:\t0000000000000000")),
                "{set} not empty: {caps}"
            );
        }
        for id in ["clone", "git", "warden", "umount", "bind", "keys"] {
            assert!(get(id).contains("end"), "{id} did not run: {}", get(id));
        }
        let ws = self.env.workspace();
        // The sandbox's report names only what the kernel refused.
        if ws.join(".git/planted").exists() {
            assert!(
                !get("report").contains("was refused"),
                "a write that succeeded reported as refused: {}",
                get("report")
            );
        }
        // After the fact: the person's own git, outside warden.
        git(&ws, &["status", "--short"]);
        git(&ws, &["commit", "-q", "--allow-empty", "-m", "after"]);
        let marks: Vec<_> = std::fs::read_dir(&self.marks)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(marks.is_empty(), "planted code ran: {marks:?}");
        assert!(!ws.join(".git/hooks/pre-commit").exists());
        assert!(!ws.join(".git/planted").exists());
        assert_eq!(
            std::fs::read(ws.join(".git/config")).unwrap(),
            self.git_config,
            ".git/config changed"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join(".warden/config.toml")).unwrap(),
            PROJECT_CONFIG,
            ".warden/config.toml changed"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join(".env")).unwrap(),
            format!("TOKEN={DOTENV_SECRET}\n")
        );
    }
}

/// Promise: a `shell` command can neither unlock, remove or copy around its mounts nor read
/// the person's keyring, and holds no capability, whoever runs warden.
#[test]
fn a_shell_command_cannot_take_its_mounts_apart_or_read_the_keyring() {
    let test = "a_shell_command_cannot_take_its_mounts_apart_or_read_the_keyring";
    if !sandbox(test) {
        return;
    }
    let Some(python) = interpreter(test) else {
        return;
    };
    let scene = Scene::new("");
    let calls: Vec<_> = scene
        .attacks(&python)
        .into_iter()
        .map(|(id, command)| (id, "shell", json!({ "command": command })))
        .collect();
    let results = scene.run(&python, &calls);
    scene.check(&results);
}

/// Promise: the same holds for an MCP server's processes, granted the workspace to read or to
/// write.
fn mcp_server_cannot_take_its_mounts_apart(test: &str, fs: &str) {
    if !sandbox(test) {
        return;
    }
    let Some(python) = python(test) else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/probe.py");
    let entry = format!(
        "[[mcp]]\nname = \"probe\"\ncommand = [{:?}, {:?}]\napprove = \"never\"\nfs = {fs:?}\n",
        python.display().to_string(),
        script.display().to_string()
    );
    let scene = Scene::new(&entry);
    let calls: Vec<_> = scene
        .attacks(&python)
        .into_iter()
        .map(|(id, command)| (id, "mcp__probe__run", json!({ "command": command })))
        .collect();
    let results = scene.run(&python, &calls);
    scene.check(&results);
}

#[test]
fn a_read_only_mcp_server_cannot_take_its_mounts_apart_or_read_the_keyring() {
    mcp_server_cannot_take_its_mounts_apart(
        "a_read_only_mcp_server_cannot_take_its_mounts_apart_or_read_the_keyring",
        "read",
    );
}

#[test]
fn a_read_write_mcp_server_cannot_take_its_mounts_apart_or_read_the_keyring() {
    mcp_server_cannot_take_its_mounts_apart(
        "a_read_write_mcp_server_cannot_take_its_mounts_apart_or_read_the_keyring",
        "read-write",
    );
}

/// Promise: `warden doctor` tells the truth about the two pieces that make the sandbox hold
/// as root: both are tried in its throw-away launcher and listed.
#[test]
fn doctor_lists_the_locked_mounts_and_the_capability_drop() {
    let test = "doctor_lists_the_locked_mounts_and_the_capability_drop";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    let out = env.run(&["doctor"]);
    let text = crate::support::stdout(&out);
    for piece in [
        "ok    shell sandbox: locked mounts (a second user namespace locks every mount)",
        "ok    shell sandbox: capability drop (bounding, ambient, inheritable, permitted and effective sets emptied; securebits locked)",
    ] {
        assert!(text.contains(piece), "{piece} missing in:\n{text}");
    }
}
