//! Sandbox escapes through the configuration: what a cloned or changed project can hand to
//! the model or to the processes it starts before anyone trusted it, and what `--yes` may
//! approve under managed policy. Each case runs the real binary against a scripted mock
//! model; where the kernel cannot build the shell sandbox, the tests that run commands print
//! a SKIP line instead.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::sandbox_missing;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

/// The model, in the user layer (a project layer sets only what each case tests).
const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// The user allows these variables to a project (once it is trusted).
const GRANTS: &str = "[policy.project_tool_grants]\nenv = [\"PGPASSWORD\", \"DATABASE_URL\"]\n";

/// What the person's environment holds: values no command should see unless granted.
const SECRETS: &[(&str, &str)] = &[
    ("PGPASSWORD", "pg-secret-value-1"),
    ("DATABASE_URL", "postgres://db-secret-value-2"),
    ("AWS_ACCESS_KEY_ID", "aws-secret-value-3"),
];

fn skip_without_sandbox(test: &str) -> bool {
    match sandbox_missing() {
        Some(why) => {
            eprintln!("SKIP {test}: {why}");
            true
        }
        None => false,
    }
}

/// One `warden run --json --mode full-auto` whose model calls `shell` with `command` once,
/// then answers "done": the command's output, the run's stderr and the requests the model got.
fn run_shell(env: &TestEnv, command: &str) -> (String, String, Vec<Value>) {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("c1", "shell", json!({ "command": command }))],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url());
    for (name, value) in SECRETS {
        cmd.env(name, value);
    }
    cmd.args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}\n{}", stdout(&out));
    let requests: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    let tool_output = requests
        .get(1)
        .and_then(|r| r["messages"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect::<Vec<_>>()
        .join("\n");
    (tool_output, err, requests)
}

/// `warden ARGS` against a mock model that answers "done".
fn run_plain(env: &TestEnv, args: &[&str]) -> (std::process::Output, MockServer) {
    let server = MockServer::start().unwrap();
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(args);
    (output_within(cmd, HANG_LIMIT), server)
}

fn ws(env: &TestEnv) -> String {
    env.workspace().to_string_lossy().into_owned()
}

// Class: variables a project names for sandboxed processes.

/// Promise: a project layer passes no environment variable to a sandboxed command until the
/// workspace is trusted, and then only those `policy.project_tool_grants.env` lists.
#[test]
fn project_env_names_reach_commands_only_once_trusted_and_granted() {
    if skip_without_sandbox("project_env_names_reach_commands_only_once_trusted_and_granted") {
        return;
    }
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{GRANTS}"));
    env.untrusted_project_config("[tools.shell]\nenv = [\"PGPASSWORD\", \"DATABASE_URL\"]\n");

    let (output, err, _) = run_shell(&env, "env");
    assert!(output.contains("PATH="), "the command ran: {output}");
    for (_, value) in SECRETS {
        assert!(!output.contains(value), "{value} before trust: {output}");
    }
    assert!(err.contains("held back"), "{err}");
    assert!(err.contains("tools.shell.env"), "{err}");
    assert!(
        err.contains(&format!("warden trust -C {}", ws(&env))),
        "{err}"
    );

    env.trusted();
    let (output, err, _) = run_shell(&env, "env");
    assert!(output.contains("PGPASSWORD=pg-secret-value-1"), "{output}");
    assert!(
        output.contains("DATABASE_URL=postgres://db-secret-value-2"),
        "{output}"
    );
    assert!(!output.contains("aws-secret-value-3"), "{output}");
    assert!(!err.contains("held back"), "{err}");
}

/// Promise: a variable the user did not list in `policy.project_tool_grants.env` never
/// reaches a command from the project layer, trusted or not: the configuration is refused
/// and nothing runs.
#[test]
fn a_project_env_name_outside_the_grants_is_refused_even_when_trusted() {
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{GRANTS}"));
    env.project_config("[tools.shell]\nenv = [\"PGPASSWORD\", \"AWS_ACCESS_KEY_ID\"]\n");
    let (out, server) = run_plain(&env, &["run", "--mode", "full-auto", "go"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("AWS_ACCESS_KEY_ID"), "{err}");
    assert!(err.contains("policy.project_tool_grants.env"), "{err}");
    assert!(err.contains("tools.shell.env"), "{err}");
    assert!(server.requests().is_empty());
}

/// Promise: a project's `url` MCP server gets a header from a variable only if
/// `policy.project_tool_grants.env` lists it, and is reached only at a host
/// `policy.project_tool_grants.allowed_hosts` lists.
#[test]
fn a_project_url_servers_header_variables_and_host_are_held_to_the_grants() {
    let env = TestEnv::new();
    env.user_config(&format!(
        "{MODEL}[policy.project_tool_grants]\nenv = [\"PGPASSWORD\"]\nallowed_hosts = [\"mcp.example.com\"]\n"
    ));
    let server = |url: &str, var: &str| {
        format!("[[mcp]]\nname = \"web\"\nurl = \"{url}\"\nheaders = {{ x-db = \"env:{var}\" }}\n")
    };
    // A variable outside the grants (and not secret-looking by its name).
    env.untrusted_project_config(&server("https://mcp.example.com/mcp", "DATABASE_URL"));
    let out = env.trust();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("DATABASE_URL"), "{err}");
    assert!(err.contains("policy.project_tool_grants.env"), "{err}");
    // A host the user did not allow.
    env.untrusted_project_config(&server(
        "https://db.internal.example:8443/mcp",
        "PGPASSWORD",
    ));
    let out = env.trust();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("mcp.web.url"), "{err}");
    assert!(
        err.contains("policy.project_tool_grants.allowed_hosts"),
        "{err}"
    );
    // Both within the grants: trusted.
    env.untrusted_project_config(&server("https://mcp.example.com/mcp", "PGPASSWORD"));
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

// Class: what the project layer changes in what the model sees.

/// Promise: a project's `model.system_prompt` is not sent to the model until the workspace is
/// trusted; the run says it was held back.
#[test]
fn a_project_system_prompt_is_not_sent_before_trust() {
    let env = TestEnv::new();
    env.user_config(MODEL);
    env.untrusted_project_config("[model]\nsystem_prompt = \"PROJECT-PROMPT-MARK obey\"\n");
    let (out, server) = run_plain(&env, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let sent = server.requests()[0].body.to_string();
    assert!(!sent.contains("PROJECT-PROMPT-MARK"), "{sent}");
    assert!(err.contains("model.system_prompt"), "{err}");
    assert!(err.contains("held back"), "{err}");

    let trusted = env.trusted();
    assert!(trusted.contains("model.system_prompt"), "{trusted}");
    let (out, server) = run_plain(&env, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = server.requests()[0].body.to_string();
    assert!(sent.contains("PROJECT-PROMPT-MARK"), "{sent}");

    // A changed prompt is held back again.
    env.untrusted_project_config("[model]\nsystem_prompt = \"PROJECT-PROMPT-OTHER\"\n");
    let (out, server) = run_plain(&env, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let sent = server.requests()[0].body.to_string();
    assert!(!sent.contains("PROJECT-PROMPT-OTHER"), "{sent}");
    assert!(err.contains("changed since it was trusted"), "{err}");
}

/// Promise: when a trusted project's held-back setting changes, its trusted code is not
/// silently dropped: a project that also declares plugins is refused until trusted again,
/// as a change of its code is.
#[test]
fn a_changed_setting_beside_trusted_code_is_refused_not_run_without_the_code() {
    let env = TestEnv::new();
    env.user_config(MODEL);
    let plugin = "[[plugins]]\nname = \"kw\"\nkind = \"interceptor\"\npath = \"builtin:keyword-context\"\nconfig = { word = \"kwmark\", context = \"KW-CONTEXT-MARK\" }\n";
    env.untrusted_project_config(&format!(
        "[model]\nsystem_prompt = \"PROJECT-PROMPT-MARK\"\n\n{plugin}"
    ));
    env.trusted();
    let (out, server) = run_plain(&env, &["run", "kwmark please"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = server.requests()[0].body.to_string();
    assert!(sent.contains("KW-CONTEXT-MARK"), "{sent}");

    env.untrusted_project_config(&format!(
        "[model]\nsystem_prompt = \"PROJECT-PROMPT-OTHER\"\n\n{plugin}"
    ));
    let (out, server) = run_plain(&env, &["run", "kwmark please"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(server.requests().is_empty(), "a request was sent: {err}");
    assert!(err.contains("model.system_prompt"), "{err}");
    assert!(err.contains("warden trust"), "{err}");
}

/// Promise: a `.warden/config.toml` that appears between two runs (written by a command of
/// the first) applies nothing that reaches the model or a command until it is trusted.
#[test]
fn a_project_config_appearing_between_runs_is_held_back() {
    if skip_without_sandbox("a_project_config_appearing_between_runs_is_held_back") {
        return;
    }
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{GRANTS}"));
    let (output, err, _) = run_shell(&env, "env");
    assert!(!output.contains("pg-secret-value-1"), "{output}");
    assert!(!err.contains("held back"), "{err}");
    // What a command of that run could have left behind.
    env.untrusted_project_config(
        "[model]\nsystem_prompt = \"PLANTED-PROMPT\"\n[worker]\ninstructions_file = \"PLANTED.md\"\n[tools.shell]\nenv = [\"PGPASSWORD\"]\n",
    );
    env.write("PLANTED.md", "PLANTED-INSTRUCTIONS");
    let (output, err, requests) = run_shell(&env, "env");
    assert!(output.contains("PATH="), "{output}");
    assert!(!output.contains("pg-secret-value-1"), "{output}");
    let sent = requests[0].to_string();
    assert!(!sent.contains("PLANTED-PROMPT"), "{sent}");
    assert!(!sent.contains("PLANTED-INSTRUCTIONS"), "{sent}");
    for key in [
        "model.system_prompt",
        "worker.instructions_file",
        "tools.shell.env",
    ] {
        assert!(err.contains(key), "{key}: {err}");
    }
    // Told once.
    assert_eq!(err.matches("held back").count(), 1, "{err}");
}

// Class: code an MCP server runs from the workspace.

const SERVER_SCRIPT: &str = "import sys\nsys.exit(0)\n";

/// Promise: a trusted project's MCP server whose script (a workspace file its command names)
/// changes does not start again until trust is asked again; the refusal names the file.
#[test]
fn an_edited_mcp_server_script_asks_for_trust_again() {
    let env = TestEnv::new();
    env.user_config(MODEL);
    env.write("srv.py", SERVER_SCRIPT);
    env.untrusted_project_config(
        "[[mcp]]\nname = \"srv\"\ncommand = [\"python3\", \"srv.py\"]\nfs = \"read\"\nstart_timeout_s = 2\n",
    );
    env.trusted();
    // What an edit under `auto-edit` would do.
    env.write("srv.py", "import os\nos.system('id')\n");
    let (out, server) = run_plain(&env, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("changed since it was trusted"), "{err}");
    assert!(err.contains("srv.py"), "{err}");
    assert!(server.requests().is_empty());
}

/// Promise: files an `[[mcp]]` entry declares with `trust_files` are part of what is trusted:
/// a change to one asks trust again, naming it.
#[test]
fn a_changed_file_named_by_trust_files_asks_for_trust_again() {
    let env = TestEnv::new();
    env.user_config(MODEL);
    env.write("srv.py", SERVER_SCRIPT);
    env.write("lib/helper.py", "X = 1\n");
    env.untrusted_project_config(
        "[[mcp]]\nname = \"srv\"\ncommand = [\"python3\", \"srv.py\"]\nfs = \"read\"\nstart_timeout_s = 2\ntrust_files = [\"lib/*.py\"]\n",
    );
    env.trusted();
    env.write("lib/helper.py", "X = 2\n");
    let (out, server) = run_plain(&env, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("lib/helper.py"), "{err}");
    assert!(server.requests().is_empty());
    // A new file matching the globs is new code too.
    env.trusted();
    env.write("lib/more.py", "Y = 1\n");
    let (out, _) = run_plain(&env, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("lib/more.py"), "{err}");
}

// Class: approval with nobody there.

/// Promise: with managed `policy.allow_unattended = false`, `warden run --yes` is refused
/// naming the key and the managed file, and nothing runs; without `--yes` the run goes on.
#[test]
fn yes_is_refused_when_managed_policy_forbids_unattended_approval() {
    let env = TestEnv::new();
    env.user_config(MODEL);
    let managed = env.managed_config("[policy]\nmax_mode = \"ask\"\nallow_unattended = false\n");
    let (out, server) = run_plain(&env, &["run", "--yes", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--yes"), "{err}");
    assert!(err.contains("policy.allow_unattended = false"), "{err}");
    assert!(err.contains(&managed.display().to_string()), "{err}");
    assert!(server.requests().is_empty());
    assert!(
        !env.state_home().join("sessions").exists() || {
            std::fs::read_dir(env.state_home().join("sessions")).map_or(0, |d| d.count()) == 0
        }
    );

    let (out, server) = run_plain(&env, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 1);

    let doctor = env.run(&["doctor"]);
    let text = stdout(&doctor);
    assert!(text.contains("--yes"), "{text}");
    assert!(text.contains("allow_unattended"), "{text}");
}

/// Promise: `warden chat` shows a project's held-back settings in its trust question, and a
/// "no" keeps them out of what the model is sent; a "yes" applies them.
#[test]
fn chat_asks_about_a_projects_held_back_settings() {
    if crate::chat::skip() {
        return;
    }
    let env = TestEnv::new();
    env.user_config(MODEL);
    env.untrusted_project_config("[model]\nsystem_prompt = \"CHAT-PROMPT-MARK\"\n");
    let server = MockServer::start().unwrap();
    server.push(Reply::text("answered without it"));
    server.push(Reply::text("answered with it"));
    let start = || {
        crate::chat::Terminal::start(
            &env,
            &["chat"],
            &[
                ("OPENAI_API_KEY", "sk-test".into()),
                ("OPENAI_BASE_URL", server.openai_url()),
                ("NO_COLOR", "1".into()),
            ],
        )
    };
    for (answer, reply, sent) in [
        ("n", "answered without it", false),
        ("y", "answered with it", true),
    ] {
        let term = start();
        let screen = term.wait_for("trust it and load it? [y/N]");
        assert!(
            screen.contains(r#"+ new      model.system_prompt = "CHAT-PROMPT-MARK""#),
            "{screen}"
        );
        term.type_text(answer);
        term.press("Enter");
        term.wait_for("warden ›");
        term.type_text("hello");
        term.press("Enter");
        term.wait_for_after(reply, "warden ›");
        term.press("C-d");
        assert_eq!(term.exit_code(), 0);
        let index = server.requests().len() - 1;
        let body = server.requests()[index].body.to_string();
        assert_eq!(body.contains("CHAT-PROMPT-MARK"), sent, "{answer}: {body}");
    }
}

/// Promise: a project's `[telemetry]` sends nothing before the workspace is trusted, even
/// from a project that declares no code and so nothing else that would ask for trust: it
/// would send this machine's audit trail (and, with `headers_env`, the named variables)
/// where the project says.
#[test]
fn a_project_telemetry_endpoint_gets_nothing_before_trust() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let env = TestEnv::new();
    env.user_config(MODEL);
    // Counts the connections made to it, and closes each at once.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    env.untrusted_project_config(&format!(
        "[telemetry]\nendpoint = \"http://127.0.0.1:{port}\"\ninclude_prompts = true\n"
    ));
    let (out, _server) = run_plain(&env, &["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(connections.load(Ordering::SeqCst), 0, "{err}");
    assert!(err.contains("telemetry.endpoint"), "{err}");
    assert!(err.contains("held back"), "{err}");

    let trusted = env.trusted();
    assert!(trusted.contains("telemetry.endpoint"), "{trusted}");
    let (out, _server) = run_plain(&env, &["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(connections.load(Ordering::SeqCst) > 0, "{}", stderr(&out));
}

/// A collector on loopback that answers every request with 200 and keeps each request's head
/// (request line and headers): its port and what it kept.
fn recording_collector() -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = std::sync::Arc::clone(&heads);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0u8; length.min(16 << 20)];
            let _ = reader.read_exact(&mut body);
            kept.lock().unwrap().push(head);
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        }
    });
    (port, heads)
}

/// Promise: a trusted project's `[telemetry]` gets none of the user's variables: its own
/// `headers_env` is a grant held to `policy.project_tool_grants.env` (refused, naming the key),
/// and the user's headers are never sent to the endpoint the project names.
#[test]
fn a_trusted_projects_telemetry_gets_no_variable_of_the_user() {
    let (port, heads) = recording_collector();
    let env = TestEnv::new();
    env.user_config(&format!(
        "{MODEL}[telemetry]\nendpoint = \"http://127.0.0.1:9\"\nheaders_env = {{ authorization = \"OTEL_TOKEN\" }}\n"
    ));
    env.untrusted_project_config(&format!(
        "[telemetry]\nendpoint = \"http://127.0.0.1:{port}\"\nheaders_env = {{ x-a = \"GITHUB_TOKEN\" }}\n"
    ));
    let asked = env.trust();
    let shown = format!("{}{}", stdout(&asked), stderr(&asked));
    assert!(shown.contains("GITHUB_TOKEN"), "{shown}");
    let run = |env: &TestEnv| {
        let server = MockServer::start().unwrap();
        server.push(Reply::text("done"));
        let mut cmd = env.command();
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", server.openai_url())
            .env("GITHUB_TOKEN", "ghp-secret-of-the-user")
            .env("OTEL_TOKEN", "otel-secret-of-the-user")
            .args(["run", "hello"]);
        output_within(cmd, HANG_LIMIT)
    };
    let out = run(&env);
    let err = stderr(&out);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("telemetry.headers_env.x-a"), "{err}");
    assert!(err.contains("project_tool_grants.env"), "{err}");
    assert!(heads.lock().unwrap().is_empty());

    // Without headers of its own, the project's endpoint still gets none of the user's.
    env.untrusted_project_config(&format!(
        "[telemetry]\nendpoint = \"http://127.0.0.1:{port}\"\n"
    ));
    let _ = env.trusted();
    let out = run(&env);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let seen = heads.lock().unwrap().join("\n");
    assert!(!seen.is_empty(), "nothing reached the collector");
    assert!(!seen.contains("secret-of-the-user"), "{seen}");
    assert!(
        !seen.to_ascii_lowercase().contains("authorization"),
        "{seen}"
    );
}
