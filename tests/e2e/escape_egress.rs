//! Sandbox escapes through egress, organised by class: a sandboxed command borrowing another
//! process's filtering proxy, a URL whose host two parsers read differently, a request head
//! that smuggles a second `Host`, a URL pattern that admits another host, and denied files
//! that reach a command by another route (git's objects, a file created after a server
//! started). Each test's doc comment names the promise it checks.
//!
//! Where this kernel lacks a piece of the sandbox, or Python or the `mcp` package is missing,
//! a test prints a SKIP line (a failure under `CI=true`).

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;

use serde_json::json;

use crate::mcp_client::{FULL_AUTO, MODEL, fixture_entry, python, sandbox, turn};
use crate::shell::{OPENAI, per_host_missing, run_calls, sandbox_missing};
use crate::shell_hosts::listener;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

fn skip(test: &str, why: &str) {
    let line = format!("SKIP {test}: {why}");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true");
    }
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The sandbox with per-host network here, or a SKIP line.
fn per_host_ready(test: &str) -> bool {
    if let Some(missing) = sandbox_missing() {
        skip(
            test,
            &format!("the sandbox cannot be built here: {missing}"),
        );
        return false;
    }
    if let Some(missing) = per_host_missing() {
        skip(
            test,
            &format!("per-host network is not available here: {missing}"),
        );
        return false;
    }
    true
}

/// A `shell` call running the Python script `name` (written into the workspace).
fn py_call(env: &TestEnv, python: &Path, name: &str, script: &str) -> serde_json::Value {
    env.write(name, script);
    json!({ "command": format!("{} {name}", python.display()) })
}

// --- The proxy's peers -------------------------------------------------------------------

const BORROW: &str = "import glob, socket
hits = glob.glob(\"/tmp/warden-mcp-*/warden-proxy.sock\")
print(\"SOCKETS\", len(hits))
for p in hits:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(p)
        s.sendall(b\"GET http://127.0.0.1:PORT/x HTTP/1.1\\r\\n\\r\\n\")
        data = b\"\"
        while len(data) < 4000:
            chunk = s.recv(1000)
            if not chunk:
                break
            data += chunk
        print(\"ANSWER\", data.decode().splitlines())
    except OSError as e:
        print(\"REFUSED\", e)
";

/// Promise: a sandboxed command cannot borrow another process's proxy (and its
/// `allowed_hosts`): each proxy serves only the launcher it was started for.
#[test]
fn a_shell_call_cannot_borrow_a_running_mcp_servers_proxy() {
    let test = "a_shell_call_cannot_borrow_a_running_mcp_servers_proxy";
    let Some(python) = python(test) else { return };
    if !sandbox(test) || !per_host_ready(test) {
        return;
    }
    let (port, seen) = listener();
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{FULL_AUTO}"));
    env.user_config(&fixture_entry(
        "hosts",
        &python,
        "stdio",
        &format!("approve = \"never\"\nallowed_hosts = [\"127.0.0.1:{port}\"]"),
    ));
    let shell = py_call(
        &env,
        &python,
        "borrow.py",
        &BORROW.replace("PORT", &port.to_string()),
    );
    let t = turn(
        &env,
        &[
            ("c1", "mcp__hosts__echo", json!({"text": "up"})),
            ("c2", "shell", shell),
        ],
        &["--mode", "full-auto"],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    assert_eq!(t.result("c1"), "echo: up");
    let borrowed = t.result("c2");
    assert!(!borrowed.contains("200 OK"), "{borrowed}");
    // Refused by the proxy (naming why), or unable to connect at all.
    assert!(
        borrowed.contains("serves only its own sandbox") || borrowed.contains("REFUSED"),
        "{borrowed}"
    );
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "the server's granted host was reached from a shell call: {borrowed}"
    );
}

// --- Parsing a URL's host ----------------------------------------------------------------

/// Promise: a `url` MCP server's host is read as the HTTP client reads it, so a backslash
/// before `@` cannot pass the host ceiling with one host and connect to another.
#[test]
fn a_backslash_in_a_url_server_address_cannot_pass_the_host_ceiling() {
    let (allowed, allowed_seen) = listener();
    let (evil, evil_seen) = listener();
    let env = TestEnv::new();
    env.project_config(MODEL);
    env.managed_config(&format!(
        "[policy]\nmax_tool_grants = {{ allowed_hosts = [\"127.0.0.1:{allowed}\"] }}\n"
    ));
    let file = env.user_config(&format!(
        "[[mcp]]\nname = \"web\"\nurl = \"http://127.0.0.1:{evil}\\\\@127.0.0.1:{allowed}/mcp\"\napprove = \"never\"\n"
    ));
    let out = env.run(&["mcp", "list"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("mcp.web.url")
            && err.contains(&format!("127.0.0.1:{evil}"))
            && err.contains(&file.display().to_string()),
        "{err}"
    );
    let t = turn(&env, &[], &[], "go");
    assert_eq!(t.code, Some(2), "{} {}", t.err, t.value);
    assert_eq!(evil_seen.load(Ordering::SeqCst), 0, "{}", t.err);
    assert_eq!(allowed_seen.load(Ordering::SeqCst), 0, "{}", t.err);
}

// --- The proxy's request parser ----------------------------------------------------------

const SMUGGLE: &str = "import os, socket
port = int(os.environ[\"HTTP_PROXY\"].rsplit(\":\", 1)[1])
for head in [
    b\"GET http://127.0.0.1:PORT/ HTTP/1.1\\r\\nX-A: a\\nHost: evil\\r\\n\\r\\n\",
    b\"GET http://127.0.0.1:PORT/ HTTP/1.1\\r\\nX-A: a\\rHost: evil\\r\\n\\r\\n\",
    b\"GET http://127.0.0.1:PORT/ HTTP/1.2\\r\\n\\r\\n\",
    b\"GET http://127.0.0.1:PORT/\\x01 HTTP/1.1\\r\\n\\r\\n\",
]:
    s = socket.create_connection((\"127.0.0.1\", port), timeout=20)
    s.sendall(head)
    data = b\"\"
    while len(data) < 4000:
        chunk = s.recv(1000)
        if not chunk:
            break
        data += chunk
    print(\"ANSWER\", data.decode().splitlines())
";

/// Promise: the proxy forwards only a well-formed head: a bare LF, a control character or
/// an unknown HTTP version is refused with `400` naming why, and the host sees nothing.
#[test]
fn a_smuggled_header_is_refused_by_the_proxy() {
    let test = "a_smuggled_header_is_refused_by_the_proxy";
    if !per_host_ready(test) {
        return;
    }
    let Some(python) = python(test) else { return };
    let (port, seen) = listener();
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.user_config(&format!(
        "[tools.shell]\nallowed_hosts = [\"127.0.0.1:{port}\"]\n"
    ));
    let call = py_call(
        &env,
        &python,
        "smuggle.py",
        &SMUGGLE.replace("PORT", &port.to_string()),
    );
    let (messages, _) = run_calls(&env, &[("c1", call)], &[]);
    let text = &messages[0];
    assert_eq!(text.matches("400 Bad Request").count(), 4, "{text}");
    for why in ["bare LF", "control character", "HTTP/1.2"] {
        assert!(text.contains(why), "{why}: {text}");
    }
    assert!(
        text.contains("network: refused a malformed request"),
        "{text}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 0, "{text}");
}

// --- URL patterns ------------------------------------------------------------------------

/// Promise: a host glob of `policy.allowed_mcp` matches the URL's host only, never a path
/// that happens to end like the host.
#[test]
fn an_allowed_mcp_host_glob_does_not_admit_another_host() {
    let env = TestEnv::new();
    env.project_config(MODEL);
    env.managed_config("[policy]\nallowed_mcp = [\"http://*.wild.test/*\"]\n");
    let file = env.user_config("[[mcp]]\nname = \"web\"\nurl = \"http://evil/x.wild.test/mcp\"\n");
    let out = env.run(&["mcp", "list"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("mcp.web.url")
            && err.contains("policy.allowed_mcp")
            && err.contains(&file.display().to_string()),
        "{err}"
    );
    for url in [
        "http://evil:80@a.wild.test/mcp",
        "http://a.wild.test.evil/mcp",
    ] {
        env.user_config(&format!("[[mcp]]\nname = \"web\"\nurl = \"{url}\"\n"));
        let out = env.run(&["mcp", "list"]);
        assert_eq!(out.status.code(), Some(2), "{url}: {}", stderr(&out));
    }
    env.user_config("[[mcp]]\nname = \"web\"\nurl = \"http://a.wild.test/mcp\"\n");
    let out = env.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("web"), "{}", stdout(&out));
}

// --- Denied files by another route ------------------------------------------------------

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

/// Promise: where git holds a denied file's bytes (which no per-path cover can hide from
/// `git show`), warden says so: at `warden trust`, in `warden doctor` and when a session
/// starts.
#[test]
fn a_denied_file_tracked_by_git_is_warned_about() {
    let test = "a_denied_file_tracked_by_git_is_warned_about";
    if Command::new("git").arg("--version").output().is_err() {
        skip(test, "git not installed");
        return;
    }
    let env = TestEnv::new();
    let ws = env.workspace();
    env.write("src/keys/server.pem", "KEY");
    env.write(".env", "TOKEN=1");
    env.write("README", "hi");
    git(&ws, &["init", "-q"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-q", "-m", "init"]);
    env.untrusted_project_config(MODEL);
    let said = |text: &str| {
        text.contains("tracked by git")
            && text.contains(".env")
            && text.contains("src/keys/server.pem")
            && !text.contains("README")
    };
    let out = env.trust();
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "{all}");
    assert!(said(&all), "{all}");
    let out = env.run(&["doctor"]);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(said(&all), "{all}");
    let t = turn(&env, &[], &[], "go");
    assert_eq!(t.code, Some(0), "{}", t.err);
    assert!(said(&t.err), "{}", t.err);
    assert_eq!(t.err.matches("tracked by git").count(), 1, "{}", t.err);

    // Untracked, the same files are not warned about.
    let env = TestEnv::new();
    env.write(".env", "TOKEN=1");
    git(&env.workspace(), &["init", "-q"]);
    env.project_config(MODEL);
    let mut cmd = env.command();
    cmd.arg("doctor");
    let out = output_within(cmd, HANG_LIMIT);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!all.contains("tracked by git"), "{all}");
}
