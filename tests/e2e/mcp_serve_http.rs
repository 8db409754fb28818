//! `warden mcp serve --http`: Streamable HTTP on a loopback address only, driven by the
//! official Python SDK's client and by the MCP conformance suite (`tests/mcp-npm/`,
//! `@modelcontextprotocol/conformance`). A missing tool prints a SKIP line naming it, and fails
//! under `CI=true`.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::mcp_serve::{LIMIT, call, client_script, skip_without_python_mcp};
use crate::support::{TestEnv, output_with_input, stderr};

#[test]
fn http_refuses_a_non_loopback_address() {
    let env = TestEnv::new();
    for addr in ["0.0.0.0:8080", "192.168.1.10:80"] {
        let out = env.run(&["mcp", "serve", "--http", addr]);
        assert_eq!(out.status.code(), Some(2), "{addr}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("only a loopback address"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn http_serves_the_python_streamable_http_client() {
    if skip_without_python_mcp("mcp_serve_http::http") {
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "over http\n");
    let (mut server, url) = http_server(&env);
    let mut cmd = env.command_of(Path::new("python3"));
    cmd.arg(client_script())
        .args(["http", &url])
        .stdin(Stdio::piped());
    let steps = json!([
        {"op": "list_tools"},
        call("read_file", json!({"path": "notes.txt"})),
    ]);
    let out = output_with_input(cmd, steps.to_string().as_bytes(), LIMIT);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let outcomes: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        outcomes[0]["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|n| n == "read_file")),
        "{outcomes:?}"
    );
    assert_eq!(outcomes[1]["is_error"], false, "{outcomes:?}");
    assert!(outcomes[1]["text"].as_str().unwrap().contains("over http"));
}
/// Start `warden mcp serve --http 127.0.0.1:0` on `env`'s workspace: the child and its URL
/// (its stderr is drained on a thread).
fn http_server(env: &TestEnv) -> (std::process::Child, String) {
    let ws = env.workspace().display().to_string();
    let mut server = env
        .command()
        .args(["mcp", "serve", "-C", &ws, "--http", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(server.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next()
            .and_then(Result::ok)
            .unwrap_or_else(|| panic!("the server exited before saying where it listens"));
        if let Some(at) = line.find("http://") {
            break line[at..].split_whitespace().next().unwrap().to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (server, url)
}

/// Scenarios of the MCP conformance suite `warden mcp serve` must pass.
const MUST_PASS: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
];

/// `@modelcontextprotocol/conformance` (tests/mcp-npm/) against the HTTP server: the
/// scenarios of [`MUST_PASS`] pass, and the rest fail exactly as its baseline
/// (`tests/mcp-npm/conformance-baseline.yml`) says: the suite exits 0 only then.
#[test]
fn the_mcp_conformance_suite_passes_its_baseline() {
    let npm = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp-npm");
    let bin = npm.join("node_modules/.bin/conformance");
    if !bin.exists() {
        let line = "SKIP mcp_serve_http::conformance: @modelcontextprotocol/conformance not installed (npm install in tests/mcp-npm)";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{line}, but CI=true: .ci/run must install it");
        }
        let _ = writeln!(std::io::stderr().lock(), "{line}");
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "conformance\n");
    let (mut server, url) = http_server(&env);
    let results = env.root().join("conformance-results");
    let mut cmd = env.command_of(&bin);
    cmd.current_dir(&npm).args([
        "server",
        "--url",
        &url,
        "--expected-failures",
        "conformance-baseline.yml",
        "-o",
        &results.display().to_string(),
    ]);
    let out = output_with_input(cmd, b"", LIMIT);
    let _ = server.kill();
    let _ = server.wait();
    let text = format!("{}{}", crate::support::stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{text}");
    for scenario in MUST_PASS {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("✓ {scenario}: ")) && l.ends_with(" 0 failed")),
            "{scenario} did not pass:\n{text}"
        );
    }
}
