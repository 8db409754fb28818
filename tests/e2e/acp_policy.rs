//! Nothing loosens through the editor: managed policy caps the modes an editor may pick (and
//! `--mode`); an untrusted project's hooks stay held back until `/trust` asks the person through
//! `session/request_permission` with the facts `warden trust` shows; the editor's MCP servers
//! are the user's own — refused under `policy.managed_mcp_only`, left out under a lock on `mcp`,
//! and run in the same sandbox as configured ones (the user's keys hidden).

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::acp::{MODEL, Sdk, drive, response, text_of, updates};
use crate::shell::sandbox_missing;
use crate::support::TestEnv;

#[test]
fn managed_policy_caps_the_modes_an_editor_can_pick() {
    let test = "managed_policy_caps_the_modes_an_editor_can_pick";
    let env = TestEnv::new();
    env.managed_config("[policy]\nmax_mode = \"auto-edit\"\n");
    let root = env.workspace();
    let Some(record) = drive(
        test,
        Sdk::Ts,
        &env,
        None,
        &[],
        json!([
            {"op": "initialize"},
            {"op": "new_session", "cwd": root},
            {"op": "set_mode", "modeId": "full-auto"},
            {"op": "set_mode", "modeId": "auto-edit"},
            {"op": "set_mode", "modeId": "no-such-mode"},
        ]),
    ) else {
        return;
    };
    let modes: Vec<&str> = response(&record, 1)["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(modes, ["read-only", "ask", "auto-edit"]);
    let refused = record["results"][2]["error"].to_string();
    assert!(refused.contains("policy.max_mode"), "{refused}");
    assert_eq!(record["results"][3]["ok"], true);
    assert_eq!(record["results"][4]["ok"], false);
    // `--mode` above the cap: no session opens.
    let Some(record) = drive(
        test,
        Sdk::Ts,
        &env,
        None,
        &["--mode", "full-auto"],
        json!([{"op": "initialize"}, {"op": "new_session", "cwd": root}]),
    ) else {
        return;
    };
    let refused = record["results"][1]["error"].to_string();
    assert!(refused.contains("policy.max_mode"), "{refused}");
}

/// The project's guard: denies every `shell` call, naming itself.
const GUARD: &str = "import sys\nprint('acp-guard says no', file=sys.stderr)\nsys.exit(2)\n";

#[test]
fn an_untrusted_projects_hook_is_held_back_until_trust_is_given_through_the_editor() {
    let test = "an_untrusted_projects_hook_is_held_back_until_trust_is_given_through_the_editor";
    if let Some(missing) = sandbox_missing() {
        eprintln!("SKIP {test}: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}[tools]\nmode = \"full-auto\"\n"));
    env.write(".warden/guard.py", GUARD);
    env.untrusted_project_config(
        "[[hooks]]\nname = \"guard\"\nevent = \"PreToolUse\"\nmatcher = \"Bash\"\ntype = \"command\"\ncommand = \"python3 .warden/guard.py\"\n",
    );
    let server = MockServer::start().unwrap();
    let call =
        |id: &str| Reply::tool_calls("", &[(id, "shell", json!({"command": "echo acp-ran"}))]);
    // Untrusted: the hook does not run, the command does.
    server.push(call("c1"));
    server.push(Reply::text("ran"));
    // Trusted through the editor: the hook denies.
    server.push(call("c2"));
    server.push(Reply::text("denied"));
    let root = env.workspace();
    let Some(record) = drive(
        test,
        Sdk::Ts,
        &env,
        Some(&server),
        &[],
        json!([
            {"op": "initialize"},
            {"op": "new_session", "cwd": root},
            {"op": "prompt", "blocks": [{"type": "text", "text": "run"}]},
            {"op": "prompt", "blocks": [{"type": "text", "text": "/trust"}], "permissions": ["reject_once"]},
            {"op": "prompt", "blocks": [{"type": "text", "text": "/trust"}], "permissions": ["allow_once"]},
            {"op": "prompt", "blocks": [{"type": "text", "text": "run again"}]},
        ]),
    ) else {
        return;
    };
    let said = text_of(&record, "agent_message_chunk");
    assert!(said.contains("warden trust"), "{said}");
    assert!(said.contains("/trust"), "{said}");
    let ran = call_status(&record, "c1");
    assert_eq!(ran, "completed", "{record}");
    // `/trust` shows what would run, as `warden trust` does; no, then yes.
    let asked = &record["permission_requests"];
    assert_eq!(asked.as_array().map(Vec::len), Some(2), "{asked}");
    let facts = asked[0]["toolCall"]["content"].to_string();
    assert!(facts.contains("python3 .warden/guard.py"), "{facts}");
    assert!(said.contains("nothing was trusted"), "{said}");
    assert!(said.contains("the project's code is loaded"), "{said}");
    // Now the project's hook runs, and the editor is told it denied the call.
    assert_eq!(call_status(&record, "c2"), "failed");
    let denied = updates(&record, "tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == "c2")
        .map(|u| u["content"].to_string())
        .collect::<String>();
    assert!(denied.contains("denied by hook:guard"), "{denied}");
    assert!(denied.contains("acp-guard says no"), "{denied}");
    // The trust was recorded as `warden trust` records it.
    let trusted = env.run(&["trust", "--json"]);
    assert!(String::from_utf8_lossy(&trusted.stdout).contains("\"trusted\":true"));
}

fn call_status(record: &Value, id: &str) -> String {
    updates(record, "tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == id)
        .filter_map(|u| u["status"].as_str())
        .next_back()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_editors_mcp_servers_are_the_users_own_under_managed_policy() {
    let test = "the_editors_mcp_servers_are_the_users_own_under_managed_policy";
    let Some(python) = crate::mcp_client::python(test) else {
        return;
    };
    if !crate::mcp_client::sandbox(test) {
        return;
    }
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/mcp/server.py")
        .display()
        .to_string();
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}[tools]\nmode = \"full-auto\"\n"));
    let key = env.root().join("home/.ssh/id_rsa");
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    std::fs::write(&key, "acp-secret-key").unwrap();
    let server_entry = json!([{
        "name": "editor",
        "command": python,
        "args": [fixture, "stdio"],
        "env": [{"name": "ACP_FROM_EDITOR", "value": "1"}],
    }]);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("m1", "mcp__editor__read_secret", json!({}))],
    ));
    server.push(Reply::text("done"));
    let root = env.workspace();
    let Some(record) = drive(
        test,
        Sdk::Py,
        &env,
        Some(&server),
        &[],
        json!([
            {"op": "initialize"},
            {"op": "new_session", "cwd": root, "mcpServers": server_entry},
            {"op": "prompt", "blocks": [{"type": "text", "text": "read it"}], "permissions": ["allow_once"]},
        ]),
    ) else {
        return;
    };
    response(&record, 1);
    let offered = server.requests()[0].body["tools"].to_string();
    assert!(offered.contains("mcp__editor__read_secret"), "{offered}");
    // It ran in the sandbox: the user's key is hidden from it.
    let result = server.requests()[1].body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "tool"))
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert!(result.contains("id_rsa"), "{result}");
    assert!(!result.contains("acp-secret-key"), "{result}");
    // Managed MCP servers only: the editor's is refused, naming the policy.
    env.managed_config("[policy]\nmanaged_mcp_only = true\n");
    let Some(record) = drive(
        test,
        Sdk::Ts,
        &env,
        Some(&server),
        &[],
        json!([{"op": "initialize"}, {"op": "new_session", "cwd": root, "mcpServers": server_entry}]),
    ) else {
        return;
    };
    let refused = record["results"][1]["error"].to_string();
    assert!(refused.contains("managed_mcp_only"), "{refused}");
    // `mcp` locked: the session opens without it, and says so.
    env.managed_config("[policy]\nlocked = [\"mcp\"]\n");
    let Some(record) = drive(
        test,
        Sdk::Ts,
        &env,
        Some(&server),
        &[],
        json!([
            {"op": "initialize"},
            {"op": "new_session", "cwd": root, "mcpServers": server_entry},
            {"op": "sleep", "ms": 500},
        ]),
    ) else {
        return;
    };
    response(&record, 1);
    let said = text_of(&record, "agent_message_chunk");
    assert!(said.contains("not started: `mcp` is locked"), "{said}");
}
