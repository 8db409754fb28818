//! The operator's commands: `config show`, `audit`, `doctor`, and the `--provider` /
//! `--model` flags of `run`.

use serde_json::Value;
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

fn json(out: &std::process::Output) -> Value {
    serde_json::from_str(stdout(out).trim())
        .unwrap_or_else(|err| panic!("{err}: {}\nstderr: {}", stdout(out), stderr(out)))
}

fn value_of<'a>(shown: &'a Value, key: &str) -> &'a Value {
    shown["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["key"] == key)
        .unwrap_or_else(|| panic!("no {key} in {shown}"))
}

#[test]
fn config_show_names_each_values_layer_and_the_locks() {
    let env = TestEnv::new();
    let user = env.root_path().join("config/warden/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "[model]\nmax_tokens = 1000\ntimeout_s = 30\n").unwrap();
    let project = env.project_config("[model]\nmax_tokens = 2000\nprovider = \"openai\"\n");
    let managed = env
        .managed_config("[policy]\nlocked = [\"model.provider\"]\n[model]\nprovider = \"echo\"\n");

    let out = env.run(&["config", "show", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = json(&out);
    let max_tokens = value_of(&shown, "model.max_tokens");
    assert_eq!(max_tokens["value"], 2000);
    assert_eq!(max_tokens["layer"], "project");
    assert_eq!(max_tokens["file"], project.to_str().unwrap());
    assert_eq!(value_of(&shown, "model.timeout_s")["layer"], "user");
    assert_eq!(value_of(&shown, "model.max_retries")["layer"], "default");
    let provider = value_of(&shown, "model.provider");
    assert_eq!(provider["value"], "echo");
    assert_eq!(provider["layer"], "managed");
    assert_eq!(provider["file"], managed.to_str().unwrap());
    assert_eq!(provider["locked"], true);
    assert_eq!(max_tokens["locked"], false);
    assert_eq!(shown["locked"], serde_json::json!(["model.provider"]));

    let out = env.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("model.provider"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("managed") && line.contains("locked"),
        "{line}"
    );
}

#[test]
fn config_show_names_every_telemetry_key_and_the_layer_that_set_it() {
    let env = TestEnv::new();
    let out = env.run(&["config", "show", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = json(&out);
    for key in [
        "telemetry.enabled",
        "telemetry.endpoint",
        "telemetry.protocol",
        "telemetry.headers_env",
        "telemetry.include_prompts",
    ] {
        assert_eq!(value_of(&shown, key)["layer"], "default", "{key}");
    }
    assert_eq!(
        value_of(&shown, "telemetry.headers_env")["value"],
        serde_json::json!({})
    );

    let managed = env.managed_config(
        "[policy]\nlocked = [\"telemetry\"]\n[telemetry]\nendpoint = \"http://127.0.0.1:9\"\nheaders_env = { authorization = \"OTEL_TOKEN\" }\n",
    );
    let out = env.run(&["config", "show", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = json(&out);
    let headers = value_of(&shown, "telemetry.headers_env.authorization");
    assert_eq!(headers["value"], "OTEL_TOKEN");
    assert_eq!(headers["layer"], "managed");
    assert_eq!(headers["file"], managed.to_str().unwrap());
    assert_eq!(headers["locked"], true);
    assert_eq!(value_of(&shown, "telemetry.endpoint")["locked"], true);
}

#[test]
fn audit_shows_what_left_the_machine_per_turn() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    let out = env.run(&["run", "--json", "read @a.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let id = json(&out)["session"].as_str().unwrap().to_owned();
    env.project_config(&format!(
        "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\npattern = \"secret\"\n",
        fixtures::pattern_guard().display()
    ));
    let out = env.run(&["run", "--session", &id, "the secret word"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));

    let out = env.run(&["audit", &id, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let audit = json(&out);
    let turns = audit["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{audit}");
    let files = turns[0]["files"].as_array().unwrap();
    assert_eq!(files[0]["path"], "a.txt");
    assert_eq!(files[0]["bytes"], 6);
    assert_eq!(files[0]["sha256"].as_str().unwrap().len(), 64);
    let requests = turns[0]["requests"].as_array().unwrap();
    assert_eq!(requests[0]["provider"], "echo");
    assert_eq!(requests[0]["model"], "echo");
    assert_eq!(turns[1]["outcome"], "cancelled");
    assert_eq!(turns[1]["prompt_sha256"].as_str().unwrap().len(), 64);
    assert!(!audit.to_string().contains("the secret word"), "{audit}");
    assert_eq!(turns[1]["decisions"][0]["decision"], "cancel");

    // Without an id: every session; `--since` in the future shows nothing.
    let out = env.run(&["audit", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&["audit", "--json", "--since", "2999-01-01T00:00:00Z"]);
    assert_eq!(json(&out)["turns"], serde_json::json!([]));
    let out = env.run(&["audit", "--since", "yesterday-ish"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let out = env.run(&["audit", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("a.txt"), "{}", stdout(&out));
}

#[test]
fn doctor_checks_layers_plugins_and_home() {
    let env = TestEnv::new();
    let managed = env.managed_config("[fileref]\ndeny = [\"corp/**\"]\n");
    env.project_config(&format!(
        "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\npattern = \"x\"\n",
        fixtures::pattern_guard().display()
    ));
    let out = env.run(&["doctor"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(text.contains(managed.to_str().unwrap()), "{text}");
    let digest = sha256_hex(&std::fs::read(&managed).unwrap());
    assert!(text.contains(&digest), "{text}");
    assert!(text.contains("guard"), "{text}");
    assert!(text.contains("writable"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");

    // A missing plugin and an unwritable home fail the check (exit 1), naming them. (A
    // project cannot be trusted with a component missing: the user layer declares it.)
    env.project_config("");
    env.user_config("[[plugins]]\nname = \"gone\"\nkind = \"hook\"\npath = \"nowhere.wasm\"\n");
    let out = env.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("FAIL") && text.contains("gone"), "{text}");

    env.user_config("");
    let not_a_dir = env.write("state-file", "x");
    let mut cmd = env.command();
    cmd.env("WARDEN_HOME", &not_a_dir).arg("doctor");
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("FAIL") && l.contains("not writable")),
        "{text}"
    );
}

#[test]
fn doctor_probes_the_provider_only_when_asked() {
    let env = TestEnv::new();
    env.project_config("[model]\nprovider = \"openai\"\nname = \"m\"\n");
    let server = MockServer::start().unwrap();
    server.push(Reply::text("pong"));
    let doctor = |args: &[&str]| {
        let mut cmd = env.command();
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", server.openai_url())
            .args(args);
        output_within(cmd, HANG_LIMIT)
    };
    let out = doctor(&["doctor"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(server.requests().is_empty());
    let out = doctor(&["doctor", "--network"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(server.requests().len(), 1);
    assert!(stdout(&out).contains("reachable"), "{}", stdout(&out));
}

#[test]
fn run_takes_provider_and_model_flags() {
    let env = TestEnv::new();
    let server = MockServer::start().unwrap();
    server.push(Reply::text("from the flag"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--provider", "openai", "--model", "flag-model", "hi"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("from the flag"));
    let body = &server.requests()[0].body;
    assert_eq!(body["model"], "flag-model");

    let out = env.run(&["run", "--provider", "nope", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

#[test]
fn a_provider_flag_cannot_override_a_locked_key() {
    let env = TestEnv::new();
    env.managed_config("[policy]\nlocked = [\"model.provider\"]\n");
    let out = env.run(&["run", "--provider", "openai", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("[echo provider]"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("--provider: `model.provider` is locked"),
        "{}",
        stderr(&out)
    );
}
