//! `warden plugin list` shows a custom `fileref.resolver` beside the `[[plugins]]` entries:
//! its layer, its file and its sha256, in the table and in `--json`.

use serde_json::Value;
use warden_tests::fixtures;

use crate::support::{TestEnv, plugin_entry, stderr, stdout};

#[test]
fn list_shows_a_custom_resolver_with_its_layer() {
    let env = TestEnv::new();
    let resolver = fixtures::file_ref();
    let sha = warden::plugin::sha256_hex(&std::fs::read(&resolver).unwrap());
    env.user_config(&format!(
        "[model]\nprovider = \"echo\"\n\n[fileref]\nresolver = {:?}\nresolver_sha256 = \"{sha}\"\n\n{}",
        resolver.display().to_string(),
        plugin_entry(
            "interceptor",
            "kw",
            &fixtures::keyword_context(),
            "",
            &[("word", "x")]
        ),
    ));
    let out = env.run(&["plugin", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let row = text
        .lines()
        .find(|l| l.starts_with("fileref.resolver "))
        .unwrap_or_else(|| panic!("no resolver row in: {text}"));
    assert!(row.contains(" resolver "), "{row}");
    assert!(row.contains(" user "), "{row}");
    assert!(row.ends_with(&resolver.display().to_string()), "{row}");

    let out = env.run(&["plugin", "list", "--json"]);
    let rows: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "resolver")
        .unwrap_or_else(|| panic!("{rows}"));
    assert_eq!(row["origin"], "user");
    assert_eq!(row["sha256"], sha.as_str());
    assert_eq!(row["digest"], sha.as_str());
    assert!(
        row["declared_in"]
            .as_str()
            .is_some_and(|f| f.ends_with("config.toml")),
        "{row}"
    );
}
