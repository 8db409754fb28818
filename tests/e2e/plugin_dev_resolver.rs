//! `warden plugin dev` for a resolver: the build becomes this user's `fileref.resolver` in
//! this workspace through the dev overlay (no config file written, no trust asked, a
//! project's own resolver gives way to it), pinned to the digest accepted; a rebuild nobody
//! accepted is refused; `--stop` ends it.

use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

fn build(env: &TestEnv, from: &std::path::Path) -> String {
    let bytes = std::fs::read(from).unwrap();
    let path = env.workspace().join("build/resolver.wasm");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, &bytes).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    warden::plugin::sha256_hex(&bytes)
}

/// The `fileref.resolver` row of `plugin list --json`, if any.
fn listed_resolver(env: &TestEnv) -> Option<serde_json::Value> {
    let out = env.run(&["plugin", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    rows.as_array()?
        .iter()
        .find(|r| r["kind"] == "resolver")
        .cloned()
}

#[test]
fn a_resolver_under_development_loads_for_this_user_without_trust() {
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    env.write("notes.txt", "alpha\n");
    let first = build(&env, &fixtures::file_ref());
    // The project names another resolver, not trusted: it gives way to the dev build.
    let config = env.untrusted_project_config(&format!(
        "[fileref]\nresolver = {:?}\n",
        fixtures::bytes_resolver().display().to_string()
    ));
    let original = std::fs::read(&config).unwrap();
    let out = env.run(&["preview", "--json", "@notes.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));

    let out = env.run(&["plugin", "dev", "build/resolver.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("dev: resolver loaded for this user in "),
        "{text}"
    );
    assert!(text.contains(&format!("  sha256: {first}")), "{text}");

    let out = env.run(&["preview", "--json", "@notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("alpha"), "{}", stdout(&out));
    assert!(stderr(&out).contains("is a dev build"), "{}", stderr(&out));
    let row = listed_resolver(&env).unwrap();
    assert_eq!(row["sha256"], first.as_str());
    assert!(
        row["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("build/resolver.wasm")),
        "{row}"
    );
    assert_eq!(std::fs::read(&config).unwrap(), original);

    // A rebuild nobody accepted is refused; `plugin dev` again accepts it.
    let second = build(&env, &fixtures::leaky_resolver());
    let out = env.run(&["preview", "--json", "@notes.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains(&second), "{}", stderr(&out));
    let out = env.run(&["plugin", "dev", "build/resolver.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(listed_resolver(&env).unwrap()["sha256"], second.as_str());

    // Stopped: the project's resolver is back, waiting for trust.
    let out = env.run(&["plugin", "dev", "--stop"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("resolver"), "{}", stdout(&out));
    let out = env.run(&["preview", "--json", "@notes.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
}
