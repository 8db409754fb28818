//! The bundled `web_fetch` tool plugin (`builtin:web-fetch`), through the real binary against a
//! small HTTP server on 127.0.0.1: a page comes back as text without tags, a large one cut,
//! the person is asked once per host in a session, and a host the managed cap excludes is
//! refused before anything is fetched.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::shell::OPENAI;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const PAGE: &str = "<!DOCTYPE html><html><head><title>Release notes</title><style>p{}</style></head><body><h1>Release 2.0</h1><p>Parsing is <b>faster</b> now.</p><ul><li>first change</li></ul></body></html>";

/// A server answering `/page` with [`PAGE`] and `/big` with a page of 100,000 characters;
/// its port and how many requests it served.
fn site() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&served);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            count.fetch_add(1, Ordering::SeqCst);
            let body = if first.contains("/esc") {
                ESC_PAGE.to_owned()
            } else if first.contains("/big") {
                format!(
                    "<html><body><p>{}</p></body></html>",
                    "word ".repeat(20_000)
                )
            } else {
                PAGE.to_owned()
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: {}; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                if first.contains("/esc.txt") {
                    "text/plain"
                } else {
                    "text/html"
                },
                body.len()
            );
        }
    });
    (port, served)
}

/// A page whose text paints on a terminal and reorders what is shown: ESC sequences, a bidi
/// override, a line separator (served as HTML at `/esc`, as plain text at `/esc.txt`).
const ESC_PAGE: &str = "<html><body><p>red \u{1b}[31mALERT\u{1b}[0m then \u{202e}txt.exe and line\u{2028}sep \u{9b}2J</p></body></html>";

fn entry(hosts: &str) -> String {
    format!(
        "[[plugins]]\nname = \"web\"\nkind = \"tool\"\npath = \"builtin:web-fetch\"\nallowed_hosts = [{hosts}]\napprove = \"per-host\"\n[plugins.config]\nmax_chars = \"5000\"\n"
    )
}

fn run(env: &TestEnv, server: &MockServer, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .args(args)
        .arg("read the notes");
    output_within(cmd, HANG_LIMIT)
}

/// The tool results the model was sent with its last request, by call id.
fn results(server: &MockServer) -> Vec<(String, String)> {
    let reqs = server.requests();
    let last = reqs.last().unwrap();
    last.body["messages"]
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

#[test]
fn a_page_comes_back_as_text_and_a_large_one_is_cut() {
    let (port, served) = site();
    let env = TestEnv::new();
    env.user_config(&format!("{OPENAI}{}", entry("\"127.0.0.1\"")));
    let server = MockServer::start().unwrap();
    let url = |path: &str| json!({"url": format!("http://127.0.0.1:{port}/{path}")});
    server.push(Reply::tool_calls(
        "",
        &[
            ("f1", "web_fetch", url("page")),
            ("f2", "web_fetch", url("big")),
        ],
    ));
    server.push(Reply::text("read them"));
    let out = run(&env, &server, &["--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let results = results(&server);
    let page = &results.iter().find(|(id, _)| id == "f1").unwrap().1;
    assert!(page.contains("Release 2.0"), "{page}");
    assert!(
        page.contains("faster") && page.contains("first change"),
        "{page}"
    );
    assert!(!page.contains('<'), "no tags: {page}");
    assert!(!page.contains("p{}"), "no style: {page}");
    let big = &results.iter().find(|(id, _)| id == "f2").unwrap().1;
    assert!(
        big.contains("[cut: 5000 of"),
        "{}",
        &big[big.len().saturating_sub(200)..]
    );
    assert!(big.chars().count() < 5200, "{}", big.len());
    assert_eq!(served.load(Ordering::SeqCst), 2);
    // Audited like any tool call, with its outgoing HTTP figures.
    let audited = crate::support::audited_tools(&env, &session_of(&env));
    let fetched: Vec<&Value> = audited
        .iter()
        .filter(|a| a.to_string().contains("web_fetch"))
        .collect();
    assert_eq!(fetched.len(), 2, "{audited:?}");
    assert_eq!(fetched[0]["http"]["requests"], 1, "{fetched:?}");
    assert!(fetched[1]["http"]["bytes_in"].as_u64().unwrap_or(0) > 100_000);
    // The first call to the host was asked (`--yes` answered); the second was not.
    assert_eq!(fetched[0]["approval"], "yes", "{fetched:?}");
    assert!(fetched[1].get("approval").is_none(), "{fetched:?}");
}

fn session_of(env: &TestEnv) -> String {
    let out = env.run(&["session", "list", "--json"]);
    let list: Value = serde_json::from_str(&crate::support::stdout(&out)).unwrap();
    list[0]["id"].as_str().unwrap().to_owned()
}

#[test]
fn run_without_yes_denies_a_call_to_a_host_nobody_allowed() {
    let (port, served) = site();
    let env = TestEnv::new();
    env.user_config(&format!("{OPENAI}{}", entry("\"127.0.0.1\"")));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "f1",
            "web_fetch",
            json!({"url": format!("http://127.0.0.1:{port}/page")}),
        )],
    ));
    server.push(Reply::text("could not"));
    let out = run(&env, &server, &[]);
    let err = stderr(&out);
    assert!(err.contains("per-host"), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
    assert_eq!(served.load(Ordering::SeqCst), 0);
}

#[test]
fn a_host_the_managed_cap_excludes_is_refused() {
    let (_port, served) = site();
    let env = TestEnv::new();
    env.managed_config("[policy]\nmax_tool_grants = { allowed_hosts = [\"docs.rs\"] }\n");
    env.user_config(&format!("{OPENAI}{}", entry("\"127.0.0.1\"")));
    let server = MockServer::start().unwrap();
    let out = run(&env, &server, &["--yes"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("127.0.0.1") && err.contains("max_tool_grants"),
        "{err}"
    );
    assert!(server.requests().is_empty());
    assert_eq!(served.load(Ordering::SeqCst), 0);
}

#[test]
fn chat_asks_once_for_each_new_host_of_a_session() {
    if skip() {
        return;
    }
    let (port, served) = site();
    let env = TestEnv::new();
    env.user_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\nstream = false\n\n{}",
        entry("\"127.0.0.1\", \"localhost\"")
    ));
    let server = MockServer::start().unwrap();
    let at = |host: &str| json!({"url": format!("http://{host}:{port}/page")});
    server.push(Reply::tool_calls(
        "",
        &[("f1", "web_fetch", at("127.0.0.1"))],
    ));
    server.push(Reply::tool_calls(
        "",
        &[("f2", "web_fetch", at("127.0.0.1"))],
    ));
    server.push(Reply::tool_calls(
        "",
        &[("f3", "web_fetch", at("localhost"))],
    ));
    server.push(Reply::text("fetched three"));
    let term = chat_against(&env, &server);
    term.type_text("read the notes");
    term.press("Enter");
    let screen = term.wait_for("allow? [y]es");
    assert!(
        screen.contains(&format!("wants to reach 127.0.0.1:{port}")),
        "{screen}"
    );
    term.type_text("y");
    // The second call to the same host runs unasked; the new host asks.
    let screen = term.wait_for(&format!("wants to reach localhost:{port}"));
    term.type_text("y");
    let screen_end = term.wait_for_after("fetched three", "warden ›");
    assert_eq!(
        screen_end.matches("wants to reach").count(),
        2,
        "{screen}\n---\n{screen_end}"
    );
    assert_eq!(served.load(Ordering::SeqCst), 3);
}

/// A fetched page's ESC bytes reached the model raw: the page's text goes through the one
/// escaping function (newlines kept) before it is committed.
#[test]
fn a_fetched_pages_control_characters_reach_the_model_escaped() {
    let (port, _) = site();
    let env = TestEnv::new();
    env.user_config(&format!("{OPENAI}{}", entry("\"127.0.0.1\"")));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            (
                "f1",
                "web_fetch",
                json!({"url": format!("http://127.0.0.1:{port}/esc")}),
            ),
            (
                "f2",
                "web_fetch",
                json!({"url": format!("http://127.0.0.1:{port}/esc.txt")}),
            ),
        ],
    ));
    server.push(Reply::text("read it"));
    let out = run(&env, &server, &["--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let results = results(&server);
    for id in ["f1", "f2"] {
        let page = &results.iter().find(|(i, _)| i == id).unwrap().1;
        assert!(page.contains("ALERT"), "{page}");
        for raw in ['\u{1b}', '\u{202e}', '\u{2028}', '\u{9b}'] {
            assert!(
                !page.contains(raw),
                "{id}: {raw:?} reached the model: {page:?}"
            );
        }
    }
    // As plain text the page's controls are shown, escaped, rather than dropped.
    let text = &results.iter().find(|(i, _)| i == "f2").unwrap().1;
    assert!(text.contains("\\u{1b}[31mALERT"), "{text}");
    assert!(!stdout(&out).contains('\u{1b}'), "{}", stdout(&out));
}
