//! `[[mcp]] allowed_hosts` through the real binary: a confined stdio server (the FastMCP
//! fixture) granted one loopback host reaches it through warden's filtering proxy (an HTTP GET
//! with `urllib`, which honours `HTTP_PROXY`), gets `403` naming `mcp.<name>.allowed_hosts` for
//! any other host (whose listener sees nothing), and still cannot open a direct connection;
//! `allowed_hosts` on a `url` server, beside `network = true`, or a wildcard under a managed
//! exact-host ceiling, is a configuration error (exit 2).
//!
//! Where the `mcp` package or per-host network is missing, each test prints a SKIP line (a
//! failure under `CI=true`).

use std::io::Write;
use std::sync::atomic::Ordering;

use serde_json::json;

use crate::mcp_client::{FULL_AUTO, MODEL, fixture_entry, python, sandbox, turn};
use crate::shell_hosts::listener;
use crate::support::{TestEnv, stderr};

/// Per-host network here, or a SKIP line (a failure under `CI=true`).
fn per_host(test: &str) -> bool {
    let Some(missing) = crate::shell::per_host_missing() else {
        return true;
    };
    let line = format!("SKIP {test}: per-host network is not available here: {missing}");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true");
    }
    let _ = writeln!(std::io::stderr().lock(), "{line}");
    false
}

#[test]
fn a_server_reaches_its_granted_host_through_the_proxy_and_nothing_else() {
    let test = "a_server_reaches_its_granted_host_through_the_proxy_and_nothing_else";
    let Some(python) = python(test) else { return };
    if !sandbox(test) || !per_host(test) {
        return;
    }
    let (port, seen) = listener();
    let (other, other_seen) = listener();
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{FULL_AUTO}"));
    env.user_config(&fixture_entry(
        "hosts",
        &python,
        "stdio",
        &format!("approve = \"never\"\nallowed_hosts = [\"127.0.0.1:{port}\"]"),
    ));
    let t = turn(
        &env,
        &[
            (
                "c1",
                "mcp__hosts__fetch",
                json!({"url": format!("http://127.0.0.1:{port}/x")}),
            ),
            ("c2", "mcp__hosts__connect", json!({"port": port})),
            (
                "c3",
                "mcp__hosts__fetch",
                json!({"url": format!("http://127.0.0.1:{other}/x")}),
            ),
        ],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    assert_eq!(t.result("c1"), "HTTP 200 hello-from-lo");
    let direct = t.result("c2");
    assert!(
        direct.starts_with("REFUSED"),
        "a direct connection bypassed the proxy: {direct}"
    );
    let refused = t.result("c3");
    assert!(
        refused.starts_with("HTTP 403")
            && refused.contains(&format!("127.0.0.1:{other}"))
            && refused.contains("mcp.hosts.allowed_hosts"),
        "{refused}"
    );
    // The granted listener saw the one proxied request; the other saw nothing.
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    assert_eq!(other_seen.load(Ordering::SeqCst), 0);
}

#[test]
fn allowed_hosts_on_a_url_server_or_beside_network_is_a_configuration_error() {
    let env = TestEnv::new();
    env.project_config(MODEL);
    for (extra, says) in [
        (
            "[[mcp]]\nname = \"web\"\nurl = \"http://127.0.0.1:9/mcp\"\nallowed_hosts = [\"api.example.com\"]\n",
            "stdio server",
        ),
        (
            "[[mcp]]\nname = \"web\"\ncommand = [\"server\"]\nnetwork = true\nallowed_hosts = [\"api.example.com\"]\n",
            "network = true",
        ),
        (
            "[[mcp]]\nname = \"web\"\ncommand = [\"server\"]\nallowed_hosts = [\"https://api.example.com/\"]\n",
            "https://api.example.com/",
        ),
    ] {
        let file = env.user_config(extra);
        let out = env.run(&["mcp", "list"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{extra}: {err}");
        assert!(
            err.contains("mcp.web.allowed_hosts")
                && err.contains(says)
                && err.contains(&file.display().to_string()),
            "{extra}: {err}"
        );
    }
    // Under an exact-host ceiling a wildcard is refused, never widened nor narrowed.
    env.managed_config("[policy]\nmax_tool_grants = { allowed_hosts = [\"api.example.com\"] }\n");
    let file = env.user_config(
        "[[mcp]]\nname = \"web\"\ncommand = [\"server\"]\nallowed_hosts = [\"*.example.com\"]\n",
    );
    let out = env.run(&["mcp", "list"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("mcp.web.allowed_hosts")
            && err.contains("*.example.com")
            && err.contains("max_tool_grants")
            && err.contains(&file.display().to_string()),
        "{err}"
    );
}
