//! What `warden trust` and `warden config show` say about a project's settings that wait for
//! trust (`model.system_prompt`, `worker.instructions_file`, `tools.shell.env`): held back
//! before, applied after.

use serde_json::Value;

use crate::support::{TestEnv, stderr, stdout};

const PROMPT: &str = "[model]\nsystem_prompt = \"be brief\"\n";

/// Promise: the confirmation of `warden trust` says the settings it just trusted now apply,
/// not that they are held back.
#[test]
fn the_trust_confirmation_says_trusted_settings_now_apply() {
    let env = TestEnv::new();
    env.untrusted_project_config(PROMPT);
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.contains("model.system_prompt"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(!line.contains("held back"), "{text}");
    assert!(line.contains("applies now"), "{text}");

    // Changed, then trusted again: the change is listed the same way.
    env.untrusted_project_config("[model]\nsystem_prompt = \"be briefer\"\n");
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("changed since it was last trusted"), "{text}");
    assert!(!text.contains("held back"), "{text}");
}

/// Promise: `warden config show` marks a project setting that is held back until the
/// workspace is trusted, in text and JSON, and no longer once it is trusted.
#[test]
fn config_show_marks_project_settings_held_back_until_trust() {
    let env = TestEnv::new();
    env.untrusted_project_config(PROMPT);
    let held = |env: &TestEnv| {
        let out = env.run(&["config", "show"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        let line = text
            .lines()
            .find(|l| l.starts_with("model.system_prompt"))
            .unwrap_or_else(|| panic!("{text}"))
            .to_owned();
        let out = env.run(&["config", "show", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let json: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        let value = json["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["key"] == "model.system_prompt")
            .cloned()
            .unwrap();
        (line, value)
    };
    let (line, value) = held(&env);
    assert!(line.contains("held back until trusted"), "{line}");
    assert_eq!(value["held_back"], true, "{value}");
    assert_eq!(value["layer"], "project", "{value}");

    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (line, value) = held(&env);
    assert!(!line.contains("held back"), "{line}");
    assert_eq!(value["held_back"], false, "{value}");
}
