//! `warden mcp add`: an `[[mcp]]` entry written into the chosen layer's file, checked by the
//! same loader every command uses before it is kept, and said in full.

use crate::support::{TestEnv, stderr, stdout};

fn user_file(env: &TestEnv) -> std::path::PathBuf {
    env.root().join("config/warden/config.toml")
}

#[test]
fn a_stdio_server_is_written_into_the_user_config_and_said() {
    let env = TestEnv::new();
    let out = env.run(&[
        "mcp",
        "add",
        "docs",
        "--fs",
        "read",
        "--env",
        "DOCS_TOKEN",
        "--",
        "node",
        "server.js",
        "--port",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = user_file(&env);
    let written = std::fs::read_to_string(&file).unwrap();
    let table: toml::Table = written.parse().unwrap();
    let entry = &table["mcp"].as_array().unwrap()[0];
    assert_eq!(entry["name"].as_str(), Some("docs"));
    assert_eq!(
        entry["command"],
        toml::Value::Array(
            ["node", "server.js", "--port", "0"]
                .iter()
                .map(|s| toml::Value::String((*s).into()))
                .collect()
        )
    );
    assert_eq!(entry["fs"].as_str(), Some("read"));
    assert_eq!(
        entry["env"].as_array().unwrap()[0].as_str(),
        Some("DOCS_TOKEN")
    );
    // What it wrote, and where.
    let said = stdout(&out);
    assert!(
        said.starts_with(&format!("{}: added MCP server docs", file.display())),
        "{said}"
    );
    assert!(
        said.contains("command = [\"node\", \"server.js\", \"--port\", \"0\"]"),
        "{said}"
    );
    // Every command now sees it.
    let show = env.run(&["config", "show", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&show)).unwrap();
    assert_eq!(
        value["values"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["key"] == "mcp")
            .count(),
        1
    );
    assert!(stdout(&show).contains("\"docs\""), "{}", stdout(&show));
}

#[test]
fn a_project_entry_keeps_the_files_comments_and_a_url_server_its_header() {
    let env = TestEnv::new();
    let project = env.project_config("# the team's settings\n[model]\nprovider = \"echo\"\n");
    let out = env.run(&["mcp", "add", "lint", "--project", "--", "node", "lint.js"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read_to_string(&project).unwrap();
    assert!(written.starts_with("# the team's settings\n"), "{written}");
    let table: toml::Table = written.parse().unwrap();
    assert_eq!(
        table["mcp"].as_array().unwrap()[0]["name"].as_str(),
        Some("lint")
    );
    assert!(stdout(&out).contains("warden trust"), "{}", stdout(&out));

    // A project may not hand a server a secret-looking variable unless the user allows it:
    // the loader's own refusal, and nothing written.
    let args = [
        "mcp",
        "add",
        "web",
        "--url",
        "https://mcp.example/mcp",
        "--header",
        "Authorization=Bearer env:WEB_TOKEN",
    ];
    let out = env.run(&[&args[..], &["--project"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("project_tool_grants"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&project).unwrap(), written);

    // The user's own config may.
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table: toml::Table = std::fs::read_to_string(user_file(&env))
        .unwrap()
        .parse()
        .unwrap();
    let entry = &table["mcp"].as_array().unwrap()[0];
    assert_eq!(entry["url"].as_str(), Some("https://mcp.example/mcp"));
    assert_eq!(
        entry["headers"]["Authorization"].as_str(),
        Some("Bearer env:WEB_TOKEN")
    );
}

#[test]
fn an_entry_the_configuration_refuses_is_not_written() {
    let env = TestEnv::new();
    let file = env.user_config("[model]\nprovider = \"echo\"\n");
    let before = std::fs::read_to_string(&file).unwrap();
    // A literal secret in a header is a configuration error.
    let out = env.run(&[
        "mcp",
        "add",
        "gh",
        "--url",
        "https://mcp.example/mcp",
        "--header",
        "Authorization=Bearer ghp_literal",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing was written"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);

    // A name already taken in another layer.
    env.project_config("[[mcp]]\nname = \"docs\"\ncommand = [\"node\", \"a.js\"]\n");
    let out = env.run(&["mcp", "add", "docs", "--", "node", "b.js"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("docs"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);

    // Neither a command nor a URL.
    let out = env.run(&["mcp", "add", "nothing"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
}
