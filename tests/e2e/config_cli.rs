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
fn a_value_someone_set_over_the_ceiling_is_still_warned_about() {
    let env = TestEnv::new();
    let project =
        env.project_config("[model]\nprovider = \"echo\"\n\n[fileref]\nresolver_timeout_ms = 5000\n");
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
