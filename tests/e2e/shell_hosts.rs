//! `[tools.shell] allowed_hosts` through the real binary: a loopback HTTP listener started by
//! the test is reached through warden's filtering proxy when granted (a plain HTTP request and
//! a `CONNECT` tunnel), refused with `403` otherwise (the listener sees nothing, the result
//! names the refusal), never reached by a direct connection that bypasses the proxy; a project
//! cannot grant it, and a managed ceiling refuses a host outside it (exit 2).
//!
//! The commands use Python (its `urllib` honours `HTTP_PROXY`); where it is missing, or where
//! this kernel lacks a piece of per-host network, each test prints a SKIP line (a failure under
//! `CI=true`).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;

use crate::shell::{OPENAI, run_calls, sandbox_missing};
use crate::support::{TestEnv, stderr};

/// A loopback HTTP server answering `hello-from-lo` to every request; its port and how many
/// connections it accepted.
pub(crate) fn listener() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            count.fetch_add(1, Ordering::SeqCst);
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nConnection: close\r\n\r\nhello-from-lo",
            );
        }
    });
    (port, seen)
}

fn skip(test: &str, why: &str) {
    let line = format!("SKIP {test}: {why}");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true");
    }
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The real Python executable (not a version manager's shim, which needs the user's home), or
/// a SKIP line.
fn python(test: &str) -> Option<String> {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output();
    match out {
        Ok(out) if out.status.success() => {
            Some(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        }
        _ => {
            skip(test, "python3 not installed");
            None
        }
    }
}

/// Python and per-host network here, or a SKIP line.
fn ready(test: &str) -> Option<String> {
    if let Some(missing) = sandbox_missing() {
        skip(
            test,
            &format!("the sandbox cannot be built here: {missing}"),
        );
        return None;
    }
    if let Some(missing) = crate::shell::per_host_missing() {
        skip(
            test,
            &format!("per-host network is not available here: {missing}"),
        );
        return None;
    }
    python(test)
}

/// A `shell` call running `script` with Python.
fn py(python: &str, script: &str) -> serde_json::Value {
    json!({ "command": format!("{python} -c '{script}'") })
}

const GET: &str = "import os, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(\"http://127.0.0.1:PORT/x\", timeout=20).read().decode())
except urllib.error.HTTPError as e:
    print(\"HTTP\", e.code, e.read().decode())
except Exception as e:
    print(\"ERROR\", e)
print(\"proxy\", os.environ.get(\"HTTPS_PROXY\", \"none\"), os.environ.get(\"NO_PROXY\", \"unset\"))";

const TUNNEL: &str = "import os, socket
u = os.environ[\"HTTPS_PROXY\"].rsplit(\":\", 1)
s = socket.create_connection((\"127.0.0.1\", int(u[1])), timeout=20)
s.sendall(b\"CONNECT 127.0.0.1:PORT HTTP/1.1\\r\\n\\r\\n\")
print(s.recv(100).decode().splitlines()[0])
s.sendall(b\"GET /t HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n\")
print(s.recv(1000).decode().splitlines()[-1])";

const DIRECT: &str = "import socket
try:
    socket.create_connection((\"127.0.0.1\", PORT), timeout=5)
    print(\"CONNECTED\")
except OSError as e:
    print(\"BLOCKED\", e)";

fn with_port(script: &str, port: u16) -> String {
    script.replace("PORT", &port.to_string())
}

#[test]
fn a_granted_host_is_reached_through_the_proxy_and_nothing_else_is() {
    let test = "a_granted_host_is_reached_through_the_proxy_and_nothing_else_is";
    let Some(python) = ready(test) else { return };
    let (port, seen) = listener();
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.user_config(&format!(
        "[tools.shell]\nallowed_hosts = [\"127.0.0.1:{port}\"]\n"
    ));
    let (messages, _) = run_calls(
        &env,
        &[
            ("c1", py(&python, &with_port(GET, port))),
            ("c2", py(&python, &with_port(TUNNEL, port))),
        ],
        &[],
    );
    assert!(messages[0].contains("hello-from-lo"), "{}", messages[0]);
    assert!(
        messages[0].contains("proxy http://127.0.0.1:") && messages[0].contains(" unset"),
        "{}",
        messages[0]
    );
    assert!(
        messages[1].contains("200 Connection established") && messages[1].contains("hello-from-lo"),
        "{}",
        messages[1]
    );
    assert_eq!(seen.load(Ordering::SeqCst), 2);

    // A direct connection that bypasses the proxy fails, and the listener sees nothing.
    let (messages, _) = run_calls(&env, &[("c1", py(&python, &with_port(DIRECT, port)))], &[]);
    assert!(messages[0].contains("BLOCKED"), "{}", messages[0]);
    assert_eq!(seen.load(Ordering::SeqCst), 2);
}

#[test]
fn a_host_outside_the_list_gets_403_and_the_result_says_why() {
    let test = "a_host_outside_the_list_gets_403_and_the_result_says_why";
    let Some(python) = ready(test) else { return };
    let (port, seen) = listener();
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.user_config("[tools.shell]\nallowed_hosts = [\"api.example.com\", \"*.pypi.org\"]\n");
    let (messages, _) = run_calls(&env, &[("c1", py(&python, &with_port(GET, port)))], &[]);
    let text = &messages[0];
    assert!(
        text.contains("HTTP 403") && text.contains("is not in `[tools.shell] allowed_hosts`"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "[network: refused HTTP 127.0.0.1:{port}: not in `[tools.shell] allowed_hosts`]"
        )),
        "{text}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 0, "the listener was reached");
}

#[test]
fn a_project_cannot_grant_hosts_and_a_managed_ceiling_refuses_one_outside_it() {
    let test = "a_project_cannot_grant_hosts_and_a_managed_ceiling_refuses_one_outside_it";
    let Some(python) = ready(test) else { return };
    let (port, seen) = listener();
    let env = TestEnv::new();
    env.project_config(&format!(
        "{OPENAI}[tools.shell]\nallowed_hosts = [\"127.0.0.1:{port}\"]\n"
    ));
    let (messages, _) = run_calls(&env, &[("c1", py(&python, &with_port(GET, port)))], &[]);
    assert!(messages[0].contains("proxy none"), "{}", messages[0]);
    assert!(!messages[0].contains("hello-from-lo"), "{}", messages[0]);
    assert_eq!(seen.load(Ordering::SeqCst), 0);

    let env = TestEnv::new();
    env.project_config(OPENAI);
    let user = env.user_config(&format!(
        "[tools.shell]\nallowed_hosts = [\"127.0.0.1:{port}\"]\n"
    ));
    env.managed_config("[policy]\nshell_allowed_hosts = [\"*.example.com\"]\n");
    let out = env.run(&["run", "--mode", "full-auto", "go"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&user.display().to_string())
            && err.contains("tools.shell.allowed_hosts")
            && err.contains("policy.shell_allowed_hosts"),
        "{err}"
    );
}
