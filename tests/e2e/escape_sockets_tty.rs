//! Sandbox escapes through host Unix sockets and through the user's terminal, tried by a
//! sandboxed `shell` command (a scripted model's call through `warden run`) and by a confined
//! MCP server (the `escape.py` fixture, written with the official Python SDK).
//!
//! Classes: Unix sockets by path (a host listener, the command's own socket, a granted path,
//! another call's proxy socket), abstract Unix sockets, and the terminal (TIOCSTI, the
//! controlling terminal, escapes written to `/dev/tty`, in a real terminal run by tmux).
//!
//! Where this kernel cannot build the sandbox, each test prints a SKIP line naming the missing
//! piece instead of passing silently.

use std::io::{Read, Write};
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::mcp_client::{FULL_AUTO, MODEL, python, turn};
use crate::shell::{OPENAI, run_calls, sandbox_missing};
use crate::support::{TestEnv, warden_bin};

/// False (after a SKIP line) when the sandbox cannot be built here.
fn sandbox(test: &str) -> bool {
    match sandbox_missing() {
        None => true,
        Some(missing) => {
            eprintln!("SKIP {test}: the sandbox cannot be built here: {missing}");
            false
        }
    }
}

/// A host process listening on a Unix socket: every connection is answered `HOSTREPLY`, and
/// what it sent is kept. Stops when dropped.
struct HostListener {
    received: Arc<Mutex<Vec<u8>>>,
    stop: Arc<AtomicBool>,
}

impl HostListener {
    fn at_path(path: &Path) -> Self {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        Self::serve(UnixListener::bind(path).unwrap())
    }

    fn abstract_named(name: &str) -> Self {
        use std::os::linux::net::SocketAddrExt;
        let addr = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        Self::serve(UnixListener::bind_addr(&addr).unwrap())
    }

    fn serve(listener: UnixListener) -> Self {
        listener.set_nonblocking(true).unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (received.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((mut conn, _)) => {
                        conn.set_nonblocking(false).unwrap();
                        conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
                        let mut buf = [0u8; 256];
                        if let Ok(n) = conn.read(&mut buf) {
                            r.lock().unwrap().extend_from_slice(&buf[..n]);
                        }
                        let _ = conn.write_all(b"HOSTREPLY");
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Self { received, stop }
    }

    fn received(&self) -> String {
        String::from_utf8_lossy(&self.received.lock().unwrap()).into_owned()
    }
}

impl Drop for HostListener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// A script that connects to the Unix socket named by its argument (`@NAME`: abstract),
/// sends `STOLEN` and prints what happened.
const CONNECT_PY: &str = r#"
import socket, sys
path = sys.argv[1]
address = "\0" + path[1:] if path.startswith("@") else path
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
try:
    s.connect(address)
    s.sendall(b"STOLEN")
    print("CONNECTED", s.recv(100).decode())
except OSError as err:
    print("REFUSED errno=%d %s" % (err.errno, err))
"#;

fn connect_call(env: &TestEnv, target: &str) -> Value {
    env.write("connect.py", CONNECT_PY);
    json!({ "command": format!("python3 connect.py '{target}'") })
}

/// Promise: a sandboxed command cannot connect to a host Unix socket by its path (the shape
/// of an SSH agent or a container engine's socket), and the host listener gets no data.
#[test]
fn a_host_unix_socket_is_refused_and_its_listener_sees_no_data() {
    let test = "a_host_unix_socket_is_refused_and_its_listener_sees_no_data";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let path = env.root().join("run/agent.sock");
    let host = HostListener::at_path(&path);
    let call = connect_call(&env, &path.to_string_lossy());
    let (messages, _) = run_calls(&env, &[("c1", call)], &[]);
    let text = &messages[0];
    assert!(text.contains("REFUSED errno=13"), "{text}");
    assert!(!text.contains("HOSTREPLY"), "{text}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(host.received(), "", "the host listener got data");
}

/// Promise: a socket the command binds itself (in its private temporary directory, by an
/// absolute or a relative path) still works within the command.
#[test]
fn a_socket_the_command_binds_itself_still_works() {
    let test = "a_socket_the_command_binds_itself_still_works";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write(
        "own.py",
        r#"
import os, socket, threading
def pair(path):
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(path)
    srv.listen(1)
    def serve():
        conn, _ = srv.accept()
        conn.sendall(b"own:" + conn.recv(10))
        conn.close()
    threading.Thread(target=serve).start()
    cli = socket.socket(socket.AF_UNIX)
    cli.connect(path)
    cli.sendall(b"ping")
    print(path, cli.recv(100).decode())
pair(os.path.join(os.environ["TMPDIR"], "own.sock"))
os.chdir(os.environ["TMPDIR"])
pair("relative.sock")
"#,
    );
    let (messages, _) = run_calls(&env, &[("c1", json!({ "command": "python3 own.py" }))], &[]);
    let text = &messages[0];
    assert!(text.contains("own.sock own:ping"), "{text}");
    assert!(text.contains("relative.sock own:ping"), "{text}");
}

/// Promise: a socket path granted by `[tools.shell] unix_sockets` is reached; a project
/// cannot grant one, and managed policy's `policy.unix_sockets` refuses a grant outside it.
#[test]
fn a_granted_socket_path_is_reached_and_only_the_user_may_grant_it() {
    let test = "a_granted_socket_path_is_reached_and_only_the_user_may_grant_it";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    let path = env.root().join("run/granted.sock");
    let host = HostListener::at_path(&path);
    env.project_config(&format!(
        "{OPENAI}[tools.shell]\nunix_sockets = [{:?}]\n",
        path.to_string_lossy()
    ));
    let call = connect_call(&env, &path.to_string_lossy());
    let (messages, _) = run_calls(&env, &[("c1", call.clone())], &[]);
    assert!(messages[0].contains("REFUSED errno=13"), "{}", messages[0]);
    assert_eq!(host.received(), "");

    env.project_config(OPENAI);
    env.user_config(&format!(
        "[tools.shell]\nunix_sockets = [{:?}]\n",
        path.to_string_lossy()
    ));
    let (messages, _) = run_calls(&env, &[("c1", call)], &[]);
    assert!(
        messages[0].contains("CONNECTED HOSTREPLY"),
        "{}",
        messages[0]
    );
    assert_eq!(host.received(), "STOLEN");

    env.managed_config("[policy]\nunix_sockets = [\"/run/user/0/other.sock\"]\n");
    let out = env.run(&["config", "show"]);
    let err = crate::support::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("tools.shell.unix_sockets") && err.contains("policy.unix_sockets"),
        "{err}"
    );
}

/// Promise: a grant inside a workspace root is refused (a command could bind its own socket
/// there and pass for the granted service).
#[test]
fn a_grant_inside_the_workspace_is_refused() {
    let test = "a_grant_inside_the_workspace_is_refused";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let path = env.workspace().join("svc.sock");
    env.user_config(&format!(
        "[tools.shell]\nunix_sockets = [{:?}]\n",
        path.to_string_lossy()
    ));
    let (messages, _) = run_calls(&env, &[("c1", json!({"command": "echo ran"}))], &[]);
    assert!(
        messages[0].contains("inside a workspace root") && !messages[0].contains("ran\n"),
        "{}",
        messages[0]
    );
}

/// Promise: with the whole network granted, a command still cannot connect to an abstract
/// Unix socket of the host; without it, the host's abstract names are out of reach too.
#[test]
fn a_host_abstract_socket_is_refused() {
    let test = "a_host_abstract_socket_is_refused";
    if !sandbox(test) {
        return;
    }
    let name = format!("warden-e2e-abstract-{}", std::process::id());
    let host = HostListener::abstract_named(&name);
    for network in [true, false] {
        let env = TestEnv::new();
        env.project_config(OPENAI);
        env.user_config(&format!("[tools.shell]\nnetwork = {network}\n"));
        let call = connect_call(&env, &format!("@{name}"));
        let (messages, _) = run_calls(&env, &[("c1", call)], &[]);
        let text = &messages[0];
        assert!(text.contains("REFUSED"), "network = {network}: {text}");
        assert!(!text.contains("HOSTREPLY"), "network = {network}: {text}");
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(host.received(), "", "the host listener got data");
}

/// Promise: `warden doctor` reports the seccomp piece the socket supervisor needs and the Unix
/// sockets commands may reach.
#[test]
fn doctor_reports_the_seccomp_piece_and_the_granted_sockets() {
    let test = "doctor_reports_the_seccomp_piece_and_the_granted_sockets";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let text = crate::support::stdout(&env.run(&["doctor"]));
    assert!(text.contains("ok    shell sandbox: seccomp"), "{text}");
    assert!(
        text.contains("shell: Unix sockets reachable: none besides the sandbox's own"),
        "{text}"
    );
    env.user_config("[tools.shell]\nunix_sockets = [\"/run/user/0/agent.sock\"]\n");
    let text = crate::support::stdout(&env.run(&["doctor"]));
    assert!(
        text.contains(
            "shell: Unix sockets reachable: /run/user/0/agent.sock and the sandbox's own"
        ),
        "{text}"
    );
}

/// The `[[mcp]]` entry of the escape fixture, with `extra` keys.
fn escape_entry(name: &str, python: &Path, extra: &str) -> String {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/escape.py");
    format!(
        "[[mcp]]\nname = \"{name}\"\ncommand = [{:?}, {:?}]\napprove = \"never\"\n{extra}\n",
        python.display().to_string(),
        fixture.display().to_string()
    )
}

/// Promise: a confined MCP server cannot connect to a host Unix socket nor push keystrokes
/// (TIOCSTI refused, no controlling terminal), and reaches a socket its entry grants.
#[test]
fn an_mcp_server_cannot_reach_host_sockets_or_the_terminal() {
    let test = "an_mcp_server_cannot_reach_host_sockets_or_the_terminal";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    let denied = env.root().join("run/agent.sock");
    let granted = env.root().join("run/granted.sock");
    let denied_host = HostListener::at_path(&denied);
    let granted_host = HostListener::at_path(&granted);
    env.project_config(&format!("{MODEL}{FULL_AUTO}"));
    env.user_config(&escape_entry(
        "esc",
        &python,
        &format!("unix_sockets = [{:?}]", granted.to_string_lossy()),
    ));
    let t = turn(
        &env,
        &[
            (
                "c1",
                "mcp__esc__unix_connect",
                json!({ "path": denied.to_string_lossy() }),
            ),
            (
                "c2",
                "mcp__esc__unix_connect",
                json!({ "path": granted.to_string_lossy() }),
            ),
            ("c3", "mcp__esc__terminal", json!({})),
        ],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    assert!(
        t.result("c1").starts_with("REFUSED errno=13"),
        "{}",
        t.result("c1")
    );
    assert_eq!(t.result("c2"), "CONNECTED HOSTREPLY");
    let terminal = t.result("c3");
    assert!(
        terminal.contains("TIOCSTI null: errno=1;") && !terminal.contains("tty: opened"),
        "{terminal}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(denied_host.received(), "");
    assert_eq!(granted_host.received(), "STOLEN");
}

/// Promise: a command without the network cannot borrow a running MCP server's per-host
/// network by connecting to that server's proxy socket.
#[test]
fn another_sandboxs_proxy_socket_is_refused() {
    let test = "another_sandboxs_proxy_socket_is_refused";
    let Some(python) = python(test) else { return };
    if !sandbox(test) || crate::shell::per_host_missing().is_some() {
        eprintln!("SKIP {test}: per-host network is not available here");
        return;
    }
    let (port, seen) = crate::shell_hosts::listener();
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{FULL_AUTO}"));
    // A server granted one loopback host: its proxy socket lives while it runs.
    env.user_config(&format!(
        "{}\n[tools.shell]\n",
        escape_entry(
            "proxied",
            &python,
            &format!("allowed_hosts = [\"127.0.0.1:{port}\"]")
        )
    ));
    env.write(
        "borrow.py",
        format!(
            r#"
import glob, socket
paths = glob.glob("/tmp/warden-mcp-proxied-*/warden-proxy.sock")
print("found", len(paths))
for path in paths:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    try:
        s.connect(path)
        s.sendall(b"GET http://127.0.0.1:{port}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n")
        print("CONNECTED", s.recv(200))
    except OSError as err:
        print("REFUSED errno=%d" % err.errno)
"#
        ),
    );
    let t = turn(
        &env,
        &[
            ("c1", "mcp__proxied__terminal", json!({})),
            ("c2", "shell", json!({ "command": "python3 borrow.py" })),
        ],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    let text = t.result("c2");
    assert!(!text.contains("found 0"), "no proxy socket to try: {text}");
    assert!(
        text.contains("REFUSED errno=13") && !text.contains("CONNECTED"),
        "{text}"
    );
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "the host listener was reached"
    );
}

/// Promise: TIOCSTI is refused on any descriptor, and a command has no controlling terminal
/// (its own session; `/dev/tty` cannot be opened).
#[test]
fn tiocsti_is_refused_and_there_is_no_controlling_terminal() {
    let test = "tiocsti_is_refused_and_there_is_no_controlling_terminal";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write(
        "tty.py",
        r#"
import fcntl, os, termios
fd = os.open("/dev/null", os.O_RDONLY)
try:
    fcntl.ioctl(fd, termios.TIOCSTI, b"x")
    print("TIOCSTI pushed")
except OSError as err:
    print("TIOCSTI errno=%d" % err.errno)
try:
    os.close(os.open("/dev/tty", os.O_RDWR))
    print("tty opened")
except OSError as err:
    print("tty errno=%d" % err.errno)
print("sid=%d" % os.getsid(0))
"#,
    );
    let (messages, _) = run_calls(&env, &[("c1", json!({ "command": "python3 tty.py" }))], &[]);
    let text = &messages[0];
    assert!(text.contains("TIOCSTI errno=1\n"), "{text}");
    assert!(!text.contains("tty opened"), "{text}");
    // The session leader is the command's `sh`, PID 1 of its namespace (a leader outside the
    // namespace would show as 0).
    assert!(text.contains("sid=1\n"), "{text}");
}

/// Promise: in a real terminal, a command's TIOCSTI push and escapes written to `/dev/tty`
/// never reach the user's shell: after warden exits, the shell has run nothing and the
/// window title is unchanged.
#[test]
fn keystrokes_pushed_into_the_terminal_never_reach_the_users_shell() {
    let test = "keystrokes_pushed_into_the_terminal_never_reach_the_users_shell";
    if !sandbox(test) {
        return;
    }
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIP {test}: tmux not installed");
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let mark = env.root().join("MARK");
    env.write(
        "inject.py",
        format!(
            r#"
import fcntl, os, termios
try:
    tty = os.open("/dev/tty", os.O_RDWR)
    os.write(tty, b"\033]2;FORGED-TITLE\007")
    for byte in b"touch {}\n":
        fcntl.ioctl(tty, termios.TIOCSTI, bytes([byte]))
    print("pushed")
except OSError as err:
    print("refused errno=%d" % err.errno)
"#,
            mark.display()
        ),
    );
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("c1", "shell", json!({ "command": "python3 inject.py" }))],
    ));
    server.push(Reply::text("done"));
    let pane = Pane::start(&env);
    let exit_file = env.root().join("exit-code");
    let mut line = format!("cd '{}' && env -i", env.workspace().display());
    for (k, v) in env.env_vars() {
        line.push_str(&format!(" {k}='{v}'"));
    }
    line.push_str(&format!(
        " OPENAI_API_KEY=sk-test OPENAI_BASE_URL='{}' '{}' run --json --mode full-auto go > '{}/out.json' 2>&1; echo $? > '{}'",
        server.openai_url(),
        warden_bin().display(),
        env.root().display(),
        exit_file.display()
    ));
    pane.tmux(&["send-keys", "-t", "esc", "-l", &line]);
    pane.tmux(&["send-keys", "-t", "esc", "Enter"]);
    let start = Instant::now();
    while !exit_file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "warden did not exit:\n{}",
            pane.tmux(&["capture-pane", "-p", "-t", "esc"])
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Whatever was pushed is read by the pane's shell once warden is gone.
    pane.tmux(&["send-keys", "-t", "esc", "echo SHELL-READY", "Enter"]);
    let start = Instant::now();
    while !pane
        .tmux(&["capture-pane", "-p", "-t", "esc"])
        .contains("\nSHELL-READY")
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the shell never answered"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let out = std::fs::read_to_string(env.root().join("out.json")).unwrap_or_default();
    assert!(!mark.exists(), "the user's shell ran a pushed command");
    let title = pane.tmux(&["display-message", "-p", "-t", "esc", "#{pane_title}"]);
    assert!(!title.contains("FORGED"), "{title}");
    assert_eq!(
        std::fs::read_to_string(&exit_file)
            .unwrap_or_default()
            .trim(),
        "0",
        "{out}"
    );
    let requests = server.requests();
    let result = requests
        .get(1)
        .and_then(|r| r.body["messages"].as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert!(result.contains("refused errno="), "{result} {out}");
}

/// An interactive `sh` in a detached tmux session of its own server.
struct Pane {
    socket: String,
}

impl Pane {
    fn start(env: &TestEnv) -> Self {
        let socket = format!("warden-esc-{}", std::process::id());
        let conf: PathBuf = env.root().join("tmux.conf");
        std::fs::write(
            &conf,
            "set-option -g allow-rename on\nset-option -g set-titles on\n",
        )
        .unwrap();
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", &conf.to_string_lossy()])
            .args(["new-session", "-d", "-s", "esc", "-x", "160", "-y", "50"])
            .args(["env", "-i", "PATH=/usr/bin:/bin", "PS1=$ ", "/bin/sh", "-i"])
            .status()
            .unwrap();
        assert!(status.success());
        Self { socket }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}
