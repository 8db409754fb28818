//! `warden config show` and the warnings of every command about the configuration, through the
//! real binary: a default under a managed ceiling is clamped silently and shown as such.

use crate::support::{TestEnv, stderr, stdout};

/// The line of `config show` for `key`.
fn line_of(out: &str, key: &str) -> String {
    out.lines()
        .find(|l| l.split_whitespace().next() == Some(key))
        .unwrap_or_else(|| panic!("no line for {key}: {out}"))
        .to_owned()
}

#[test]
fn a_default_under_a_managed_ceiling_is_clamped_silently_and_shown_so() {
    let env = TestEnv::new();
    env.project_config("[model]\nprovider = \"echo\"\n");
    let managed = env.managed_config("[policy]\nmax_plugin_timeout_ms = 2000\n");
    let run = env.run(&["run", "hello"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(!stderr(&run).contains("clamped"), "{}", stderr(&run));

    let show = env.run(&["config", "show"]);
    assert_eq!(show.status.code(), Some(0), "{}", stderr(&show));
    assert!(!stderr(&show).contains("clamped"), "{}", stderr(&show));
    let line = line_of(&stdout(&show), "fileref.resolver_timeout_ms");
    assert!(
        line.ends_with(&format!(
            "  2000  [default, clamped by the ceiling `policy.max_plugin_timeout_ms` in {}]",
            managed.display()
        )),
        "{line}"
    );
}

#[test]
fn a_plugins_default_limits_under_a_managed_ceiling_are_clamped_silently_and_shown_so() {
    let env = TestEnv::new();
    let guard = warden_tests::fixtures::tool_guard();
    env.user_config(&format!(
        "[[plugins]]\nname = \"quiet\"\nkind = \"interceptor\"\npath = {:?}\n\n\
         [[plugins]]\nname = \"loud\"\nkind = \"interceptor\"\npath = {:?}\ntimeout_ms = 5000\n",
        guard.display().to_string(),
        guard.display().to_string()
    ));
    env.project_config("[model]\nprovider = \"echo\"\n");
    let managed =
        env.managed_config("[policy]\nmax_plugin_timeout_ms = 500\nmax_plugin_memory_mb = 32\n");
    for args in [&["run", "hello"][..], &["config", "show"]] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        // Only the value somebody chose is warned about, once.
        assert_eq!(err.matches("clamped").count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("plugin `loud`: timeout_ms = 5000 clamped to 500"),
            "{err}"
        );
    }
    let show = stdout(&env.run(&["config", "show"]));
    for line in [
        format!(
            "  timeout_ms = 500  [default, clamped by the ceiling `policy.max_plugin_timeout_ms` in {}]",
            managed.display()
        ),
        format!(
            "  memory_mb = 32  [default, clamped by the ceiling `policy.max_plugin_memory_mb` in {}]",
            managed.display()
        ),
    ] {
        assert!(show.contains(&line), "{line}\n{show}");
    }
}

#[test]
fn a_value_someone_set_over_the_ceiling_is_still_warned_about() {
    let env = TestEnv::new();
    let project = env
        .project_config("[model]\nprovider = \"echo\"\n\n[fileref]\nresolver_timeout_ms = 5000\n");
    env.managed_config("[policy]\nmax_plugin_timeout_ms = 2000\n");
    let show = env.run(&["config", "show"]);
    assert_eq!(show.status.code(), Some(0), "{}", stderr(&show));
    assert_eq!(
        stderr(&show)
            .matches("fileref.resolver_timeout_ms = 5000 clamped to 2000")
            .count(),
        1,
        "{}",
        stderr(&show)
    );
    let line = line_of(&stdout(&show), "fileref.resolver_timeout_ms");
    assert!(
        line.ends_with(&format!("  2000  [project]  ({})", project.display())),
        "{line}"
    );
}

#[test]
fn keys_nobody_set_are_listed_with_what_applies_and_rules_one_per_line() {
    let env = TestEnv::new();
    let show = env.run(&["config", "show"]);
    assert_eq!(show.status.code(), Some(0), "{}", stderr(&show));
    let text = stdout(&show);
    // An optional ceiling nobody set: the built-in one applies.
    let line = line_of(&text, "policy.max_plugin_timeout_ms");
    assert!(line.contains("  60000  [default, unset: "), "{line}");
    let line = line_of(&text, "policy.max_shell_timeout_s");
    assert!(line.contains("  600  [default, unset: "), "{line}");
    // The rules: one line each, never one JSON line.
    assert!(!text.contains("\"decision\":"), "{text}");
    let rules: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("rules.rules"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(
        rules
            .iter()
            .any(|l| l.contains("builtin:read-files") && l.contains("allow")),
        "{text}"
    );
    assert!(rules.iter().any(|l| l.contains("builtin:cargo")), "{text}");
    // --json lists the same keys.
    let json = env.run(&["config", "show", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    let entry = value["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["key"] == "policy.max_plugin_timeout_ms")
        .cloned()
        .unwrap_or_default();
    assert_eq!(entry["value"], 60000, "{entry}");
    assert_eq!(entry["unset"], true, "{entry}");
}
