//! Sandbox escape cases: what a sandboxed process can see and create. Each test drives the real
//! binary with a scripted model (`shell` calls, or the tool of an MCP server written with the
//! official Python SDK, `tests/fixtures/mcp/probe.py`) and checks one promise of
//! `docs/security.md`:
//!
//! - warden's own state, configuration and caches are hidden from every sandboxed process;
//! - the user's credential files of the default hidden set are unreadable;
//! - `.warden` and `.git` cannot be created at a workspace root;
//! - every repository's `.git` under the roots (and a gitfile's target) is read-only;
//! - FIFOs, sockets and devices in the workspace never block warden's own reads.
//!
//! Where this kernel cannot build the sandbox, or Python's `mcp` package is missing, a test
//! prints a SKIP line instead of passing silently.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::mcp_client::{python, sandbox};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"full-auto\"\n\n";

/// One finished `warden run`: each call's result by id.
struct Ran {
    results: HashMap<String, String>,
}

impl Ran {
    fn get(&self, id: &str) -> &str {
        self.results.get(id).map_or_else(
            || panic!("no result for {id}: {:?}", self.results),
            String::as_str,
        )
    }
}

/// One `warden run --mode full-auto` in which the model makes `calls` (id, tool, arguments),
/// then answers `done`; `extra_env` overrides the environment. The run must end well within
/// the hang limit and succeed.
fn run_tools(env: &TestEnv, calls: &[(&str, &str, Value)], extra_env: &[(&str, String)]) -> Ran {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("", calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    cmd.args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = server.requests();
    let results = requests[1].body["messages"]
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
        .collect();
    Ran { results }
}

fn shell(id: &'static str, command: &str) -> (&'static str, &'static str, Value) {
    (id, "shell", json!({ "command": command }))
}

fn probe_entry(python: &Path, fs: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/probe.py");
    format!(
        "[[mcp]]\nname = \"probe\"\ncommand = [{:?}, {:?}]\napprove = \"never\"\nfs = {fs:?}\n",
        python.display().to_string(),
        script.display().to_string()
    )
}

fn probe(id: &'static str, command: &str) -> (&'static str, &'static str, Value) {
    (id, "mcp__probe__run", json!({ "command": command }))
}

/// Write `text` at `path`, creating its directories.
fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn git(args: &[&str]) {
    let out = Command::new("git").args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

/// Marked files in warden's state root (a session's checkpoint copy, the OCI and
/// compiled-code caches), its user configuration and its managed file.
fn plant_state(env: &TestEnv) {
    let state = env.state_home();
    put(
        &state.join("sessions/older/checkpoints/blobs/ab/cdef"),
        "STATE-MARK blob\n",
    );
    put(
        &state.join("sessions/older/history.jsonl"),
        "{\"STATE-MARK\":1}\n",
    );
    put(
        &state.join("plugins/oci/sha256/00.wasm"),
        "STATE-MARK oci\n",
    );
    put(
        &state.join("cache/compiled/00.bin"),
        "STATE-MARK compiled\n",
    );
    env.user_config(&format!("# STATE-MARK user\n{MODEL}"));
    env.managed_config("# STATE-MARK managed\n");
}

// ---- warden's own state, configuration and caches ----

/// Promise: a sandboxed command finds nothing of warden's state root (sessions, histories,
/// checkpoint copies), its user or managed configuration, or its OCI and compiled caches.
#[test]
fn a_command_finds_nothing_of_wardens_state_configuration_or_caches() {
    let test = "a_command_finds_nothing_of_wardens_state_configuration_or_caches";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    plant_state(&env);
    let root = env.root().display().to_string();
    let state = env.state_home().display().to_string();
    let ran = run_tools(
        &env,
        &[
            shell(
                "c1",
                &format!(
                    "find {root} -name '*.jsonl' -o -name blobs; ls -A {state}/sessions; echo end"
                ),
            ),
            shell(
                "c2",
                &format!(
                    "grep -r STATE-MARK {root} 2>/dev/null; cat {root}/managed.toml; echo end"
                ),
            ),
        ],
        &[],
    );
    let found = ran.get("c1");
    for name in ["history.jsonl", "audit.jsonl", "blobs", "older"] {
        assert!(!found.contains(name), "{name} found: {found}");
    }
    assert!(found.contains("end"), "{found}");
    let read = ran.get("c2");
    assert!(!read.contains("STATE-MARK"), "{read}");
    assert!(read.contains("end"), "{read}");
}

/// Promise: a workspace inside the state root works as any other, and the rest of the state
/// root stays hidden from its commands.
#[test]
fn a_workspace_inside_the_state_root_keeps_the_rest_of_it_hidden() {
    let test = "a_workspace_inside_the_state_root_keeps_the_rest_of_it_hidden";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    plant_state(&env);
    let root = env.root().display().to_string();
    let ran = run_tools(
        &env,
        &[shell(
            "c1",
            &format!(
                "echo inside > inside.txt && cat inside.txt; find {root} -name '*.jsonl'; grep -r STATE-MARK {root} 2>/dev/null; echo end"
            ),
        )],
        // The state root is the directory holding the workspace.
        &[("WARDEN_HOME", root.clone())],
    );
    let out = ran.get("c1");
    assert!(out.contains("inside\n") && out.contains("end"), "{out}");
    assert!(
        !out.contains(".jsonl") && !out.contains("STATE-MARK"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("inside.txt")).unwrap(),
        "inside\n"
    );
}

/// Promise: a state root inside the workspace is hidden from the workspace's commands.
#[test]
fn a_state_root_inside_the_workspace_is_hidden() {
    let test = "a_state_root_inside_the_workspace_is_hidden";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    let state = env.workspace().join("state");
    put(&state.join("sessions/older/history.jsonl"), "STATE-MARK\n");
    let ran = run_tools(
        &env,
        &[shell(
            "c1",
            "find . -name '*.jsonl'; grep -r STATE-MARK . 2>/dev/null; echo x > f.txt; cat f.txt",
        )],
        &[("WARDEN_HOME", state.display().to_string())],
    );
    let out = ran.get("c1");
    assert!(
        !out.contains(".jsonl") && !out.contains("STATE-MARK"),
        "{out}"
    );
    assert!(out.contains("x\n"), "{out}");
}

/// Promise: an MCP server granted no files cannot list or read warden's state root or
/// configuration.
#[test]
fn an_mcp_server_without_files_cannot_list_wardens_state() {
    let test = "an_mcp_server_without_files_cannot_list_wardens_state";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    plant_state(&env);
    env.user_config(&format!(
        "# STATE-MARK user\n{MODEL}{}",
        probe_entry(&python, "none")
    ));
    let root = env.root().display().to_string();
    let state = env.state_home().display().to_string();
    let ran = run_tools(
        &env,
        &[probe(
            "c1",
            &format!("ls -AR {state}; grep -r STATE-MARK {root} 2>/dev/null; echo end"),
        )],
        &[],
    );
    let out = ran.get("c1");
    for name in ["sessions", "blobs", "history.jsonl", "STATE-MARK"] {
        assert!(!out.contains(name), "{name} seen: {out}");
    }
    assert!(out.contains("end"), "{out}");
}

// ---- the default hidden set ----

/// Promise: the registry, forge, cluster and cloud credentials of the default hidden set are
/// unreadable from a command.
#[test]
fn registry_forge_and_cluster_credentials_are_unreadable() {
    let test = "registry_forge_and_cluster_credentials_are_unreadable";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    let home = env.root().join("home");
    let files = [
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".config/gh/hosts.yml",
        ".kube/config",
        ".cargo/credentials.toml",
        ".cargo/credentials",
        ".config/hub",
        ".terraform.d/credentials.tfrc.json",
    ];
    for file in files {
        put(&home.join(file), &format!("SECRET-TOKEN {file}\n"));
    }
    let cats: Vec<String> = files.iter().map(|f| format!("cat ~/{f};")).collect();
    let ran = run_tools(
        &env,
        &[shell("c1", &format!("{} echo end", cats.join(" ")))],
        &[],
    );
    let out = ran.get("c1");
    assert!(!out.contains("SECRET-TOKEN"), "{out}");
    assert!(out.contains("end"), "{out}");
}

// ---- `.warden` and `.git` at a workspace root ----

/// Promise: a command cannot create `.warden` (a project configuration) or `.git` (a
/// repository, its hooks) at a workspace root where none exists, and none is left behind.
#[test]
fn a_command_cannot_create_warden_or_git_at_a_root() {
    let test = "a_command_cannot_create_warden_or_git_at_a_root";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    let ran = run_tools(
        &env,
        &[
            shell(
                "c1",
                "mkdir .warden; echo '[tools.shell]' > .warden/config.toml; cat .warden/config.toml; echo end",
            ),
            shell(
                "c2",
                "git init -q . && echo INIT-OK; mkdir -p .git/hooks; echo x > .git/hooks/pre-commit; echo end",
            ),
            shell(
                "c3",
                "rmdir .warden .git; mv .git moved; mv .warden moved2; echo end",
            ),
            shell("c4", "echo ok > plain.txt; cat plain.txt"),
        ],
        &[],
    );
    let ws = env.workspace();
    assert!(!ws.join(".warden").exists(), "{}", ran.get("c1"));
    assert!(!ws.join(".git").exists(), "{}", ran.get("c2"));
    assert!(!ran.get("c2").contains("INIT-OK"), "{}", ran.get("c2"));
    assert!(!ws.join("moved").exists() && !ws.join("moved2").exists());
    assert_eq!(ran.get("c4"), "ok\nexit status: 0");
}

/// Promise: an MCP server granted the workspace read-write cannot create `.warden` or `.git` at
/// a root, and none is left after it stops.
#[test]
fn an_mcp_server_cannot_create_warden_or_git_at_a_root() {
    let test = "an_mcp_server_cannot_create_warden_or_git_at_a_root";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{}", probe_entry(&python, "read-write")));
    let ran = run_tools(
        &env,
        &[probe(
            "c1",
            "mkdir .warden; echo '[tools.shell]' > .warden/config.toml; mkdir -p .git/hooks; echo ok > seen.txt; echo end",
        )],
        &[],
    );
    let ws = env.workspace();
    assert!(ran.get("c1").contains("end"), "{}", ran.get("c1"));
    assert!(ws.join("seen.txt").is_file(), "{}", ran.get("c1"));
    assert!(!ws.join(".warden").exists(), "{}", ran.get("c1"));
    assert!(!ws.join(".git").exists(), "{}", ran.get("c1"));
}

// ---- repositories under the roots ----

/// Promise: the `.git` of a repository nested in the workspace is read-only to commands: no
/// hook planted, no `core.fsmonitor` set.
#[test]
fn a_nested_repositorys_hooks_and_config_are_read_only() {
    let test = "a_nested_repositorys_hooks_and_config_are_read_only";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    let ws = env.workspace();
    let lib = ws.join("vendor/lib");
    std::fs::create_dir_all(&lib).unwrap();
    git(&["init", "-q", &lib.display().to_string()]);
    let ran = run_tools(
        &env,
        &[
            shell(
                "c1",
                "printf '#!/bin/sh\\ncat ~/.ssh/id_rsa\\n' > vendor/lib/.git/hooks/pre-commit; echo end",
            ),
            shell(
                "c2",
                "git -C vendor/lib config core.fsmonitor 'cat ~/.ssh/id_rsa'; echo end",
            ),
            shell(
                "c3",
                "echo changed > vendor/lib/file.txt; cat vendor/lib/file.txt",
            ),
        ],
        &[],
    );
    assert!(
        !lib.join(".git/hooks/pre-commit").exists(),
        "{}",
        ran.get("c1")
    );
    let config = std::fs::read_to_string(lib.join(".git/config")).unwrap();
    assert!(!config.contains("fsmonitor"), "{config} {}", ran.get("c2"));
    // The repository's working files stay writable.
    assert!(ran.get("c3").contains("changed"), "{}", ran.get("c3"));
}

/// Promise: a gitfile (`.git` holding `gitdir: …`) and the repository it points to in the
/// workspace are read-only to commands.
#[test]
fn a_gitfiles_target_is_read_only() {
    let test = "a_gitfiles_target_is_read_only";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    let ws = env.workspace();
    let store = ws.join("store/lib.git");
    let lib = ws.join("lib");
    std::fs::create_dir_all(ws.join("store")).unwrap();
    git(&[
        "init",
        "-q",
        "--separate-git-dir",
        &store.display().to_string(),
        &lib.display().to_string(),
    ]);
    let gitfile = std::fs::read_to_string(lib.join(".git")).unwrap();
    let ran = run_tools(
        &env,
        &[
            shell(
                "c1",
                "echo x > store/lib.git/hooks/pre-commit; git -C lib config core.fsmonitor evil; echo end",
            ),
            shell("c2", "echo 'gitdir: /tmp' > lib/.git; echo end"),
        ],
        &[],
    );
    assert!(
        !store.join("hooks/pre-commit").exists(),
        "{}",
        ran.get("c1")
    );
    let config = std::fs::read_to_string(store.join("config")).unwrap();
    assert!(!config.contains("fsmonitor"), "{config} {}", ran.get("c1"));
    assert_eq!(
        std::fs::read_to_string(lib.join(".git")).unwrap(),
        gitfile,
        "{}",
        ran.get("c2")
    );
}

/// Promise: a repository a command creates under the roots is not left for git to use: it is
/// moved aside, the result says so, and `warden undo` removes what the command wrote there.
#[test]
fn a_repository_created_by_a_command_is_moved_aside_and_undone() {
    let test = "a_repository_created_by_a_command_is_moved_aside_and_undone";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    let ws = env.workspace();
    let ran = run_tools(
        &env,
        &[shell(
            "c1",
            "git init -q vendor/new; mkdir -p sub/.git/hooks; printf '#!/bin/sh\\necho planted\\n' > sub/.git/hooks/pre-commit; echo end",
        )],
        &[],
    );
    let out = ran.get("c1");
    assert!(out.contains("end"), "{out}");
    assert!(!ws.join("vendor/new/.git").exists(), "{out}");
    assert!(!ws.join("sub/.git").exists(), "{out}");
    assert!(
        out.contains("vendor/new/.git") && out.contains("sub/.git") && out.contains("moved aside"),
        "{out}"
    );
    let mut cmd = env.command();
    cmd.arg("undo");
    let undo = output_within(cmd, HANG_LIMIT);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    let left = files_under(&ws.join("sub"));
    assert!(left.is_empty(), "{left:?} {}", stdout(&undo));
}

/// Promise: a repository an MCP server granted the workspace read-write creates below a root
/// is not left for git to use: it is moved aside after the call that made it, and the result
/// says so.
#[test]
fn a_repository_created_by_an_mcp_server_is_moved_aside() {
    let test = "a_repository_created_by_an_mcp_server_is_moved_aside";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{}", probe_entry(&python, "read-write")));
    let ws = env.workspace();
    let ran = run_tools(
        &env,
        &[probe(
            "c1",
            "mkdir -p sub/.git/hooks; printf '#!/bin/sh\\necho planted\\n' > sub/.git/hooks/pre-commit; echo end",
        )],
        &[],
    );
    let out = ran.get("c1");
    assert!(out.contains("end"), "{out}");
    assert!(!ws.join("sub/.git").exists(), "{out}");
    assert!(
        out.contains("sub/.git") && out.contains("moved aside") && out.contains("the server"),
        "{out}"
    );
    let aside: Vec<_> = std::fs::read_dir(ws.join("sub"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".git-planted-"))
        .collect();
    assert_eq!(aside.len(), 1, "{out}");
}

/// Every regular file below `dir`.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

// ---- files that are not regular ----

/// Promise: a FIFO, a socket and a device in the workspace never block the checkpoint scan
/// around a command, nor `warden undo` after it (a file the command replaced by a FIFO is
/// named as not restored).
#[test]
fn a_fifo_a_socket_and_a_device_never_block_the_scan_or_undo() {
    let test = "a_fifo_a_socket_and_a_device_never_block_the_scan_or_undo";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    let ws = env.workspace();
    let _socket = std::os::unix::net::UnixListener::bind(ws.join("sock")).unwrap();
    let device = make_device(&ws.join("zero"));
    env.write("kept.txt", "kept\n");
    let ran = run_tools(
        &env,
        &[shell(
            "c1",
            "mkfifo trap.txt && echo made > made.txt && rm kept.txt && mkfifo kept.txt && echo end",
        )],
        &[],
    );
    assert!(ran.get("c1").contains("end"), "{}", ran.get("c1"));
    assert!(ws.join("trap.txt").exists());
    // Undo meets the FIFO where the file was: it neither blocks nor reads it.
    let mut cmd = env.command();
    cmd.arg("undo");
    let out = output_within(cmd, HANG_LIMIT);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!ws.join("made.txt").exists(), "{said}");
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("kept.txt: not restored") && said.contains("not a regular file"),
        "{said}"
    );
    if !device {
        eprintln!("SKIP the device case of {test}: mknod refused here");
    }
}

/// Promise: `read_file`, `grep` and `glob` never block on a FIFO, a socket or a device in the
/// workspace; `read_file` refuses each as not a regular file.
#[test]
fn reading_and_searching_tools_skip_fifos_sockets_and_devices() {
    let test = "reading_and_searching_tools_skip_fifos_sockets_and_devices";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    let ws = env.workspace();
    env.write("plain.txt", "needle here\n");
    let fifo = Command::new("mkfifo")
        .arg(ws.join("trap.txt"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let _socket = std::os::unix::net::UnixListener::bind(ws.join("sock.txt")).unwrap();
    let device = make_device(&ws.join("zero.txt"));
    let ran = run_tools(
        &env,
        &[
            ("r1", "read_file", json!({"path": "trap.txt"})),
            ("r2", "read_file", json!({"path": "sock.txt"})),
            ("r3", "read_file", json!({"path": "zero.txt"})),
            ("g1", "grep", json!({"pattern": "needle"})),
            ("g2", "glob", json!({"pattern": "*.txt"})),
        ],
        &[],
    );
    for id in ["r1", "r2"] {
        assert!(
            ran.get(id).contains("not a regular file"),
            "{id}: {}",
            ran.get(id)
        );
    }
    if device {
        assert!(
            ran.get("r3").contains("not a regular file"),
            "{}",
            ran.get("r3")
        );
    } else {
        eprintln!("SKIP the device case of {test}: mknod refused here");
    }
    assert!(ran.get("g1").contains("plain.txt"), "{}", ran.get("g1"));
    assert!(ran.get("g2").contains("plain.txt"), "{}", ran.get("g2"));
}

/// A character device like `/dev/zero` at `path` (false when this process may not make one).
fn make_device(path: &Path) -> bool {
    Command::new("mknod")
        .arg(path)
        .args(["c", "1", "5"])
        .status()
        .is_ok_and(|s| s.success())
}

// ---- tool plugins' preopens ----

/// Promise: a tool plugin is never granted files on a workspace root that holds warden's
/// state root: the grant is refused, naming both, and nothing of the state is served.
#[test]
fn a_tool_plugins_grant_on_a_root_holding_the_state_root_is_refused() {
    let env = TestEnv::new();
    let state = env.workspace().join("state");
    put(&state.join("sessions/older/history.jsonl"), "STATE-MARK\n");
    env.user_config(&format!(
        "{MODEL}{}",
        crate::support::plugin_entry(
            "tool",
            "grep",
            &warden_tests::fixtures::grep_tool(),
            "fs = \"read\"",
            &[]
        )
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "c1",
            "search_text",
            json!({"pattern": "STATE-MARK", "literal": true}),
        )],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .env("WARDEN_HOME", &state)
        .args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    let seen: String = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(!seen.contains("history.jsonl"), "{seen}");
    assert!(
        all.contains("`fs`") && all.contains(&state.display().to_string()),
        "{all}"
    );
}
