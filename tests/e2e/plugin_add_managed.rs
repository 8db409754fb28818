//! `warden plugin add REF --managed FILE --mode shadow`: an operator writes a pinned entry,
//! in shadow mode, into the managed file they roll out; a machine that reads it shows the
//! entry as managed and in shadow mode, and `plugin fetch` provisions it.

use warden_tests::fixtures;

use crate::plugin_oci::registry::{Registry, have_registry};
use crate::support::{TestEnv, stderr, stdout};

#[test]
fn add_writes_a_shadow_entry_into_a_managed_file() {
    let test = "add_writes_a_shadow_entry_into_a_managed_file";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    let tag = registry.oci("fleet/guard:1");
    let out = env.run(&[
        "plugin",
        "push",
        &fixtures::tool_guard().to_string_lossy(),
        &tag,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The managed file this machine reads, with a comment the operator wrote.
    let managed = env.managed_config("# fleet policy\n[policy]\nmax_plugin_timeout_ms = 5000\n");
    let managed_s = managed.to_string_lossy().into_owned();
    let out = env.run(&[
        "plugin",
        "add",
        &tag,
        "--managed",
        &managed_s,
        "--mode",
        "shadow",
        "--config",
        "deny=write_file:*.lock",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("mode shadow"), "{}", stdout(&out));
    let text = std::fs::read_to_string(&managed).unwrap();
    assert!(text.starts_with("# fleet policy\n"), "{text}");
    for part in [
        "name = \"guard\"",
        "kind = \"interceptor\"",
        "mode = \"shadow\"",
        "sha256 = ",
        &format!("source = \"{}", registry.oci("fleet/guard:1@sha256:")),
    ] {
        assert!(text.contains(part), "missing {part:?} in: {text}");
    }
    let out = env.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = stdout(&out);
    let line = shown
        .lines()
        .find(|l| l.starts_with("plugin guard "))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(line.contains("(interceptor, mode shadow)"), "{line}");
    assert!(line.contains("[managed]"), "{line}");

    // The same name again, in any layer, is refused.
    let out = env.run(&["plugin", "add", &tag]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    // `--mode shadow` is for interceptors: a hook is refused and the file is left as it was.
    let hook_tag = registry.oci("fleet/counter:1");
    let out = env.run(&[
        "plugin",
        "push",
        &fixtures::event_counter().to_string_lossy(),
        &hook_tag,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&[
        "plugin",
        "add",
        &hook_tag,
        "--managed",
        &managed_s,
        "--mode",
        "shadow",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("interceptor"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&managed).unwrap(), text);

    // `--managed` and `--project` are one choice.
    let out = env.run(&[
        "plugin",
        "add",
        &hook_tag,
        "--managed",
        &managed_s,
        "--project",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
}
