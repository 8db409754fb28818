//! `warden plugin check` on a Python build names its exports right: the world's interface as
//! its export, and componentize-py's own start-up export (`exports`) apart, as what warden
//! never calls.

use serde_json::Value;

use crate::plugin_langs::built_example;
use crate::support::{TestEnv, stderr, stdout};

#[test]
fn check_names_a_python_builds_exports_apart_from_the_toolchains() {
    let Some(wasm) = built_example("python-hook") else {
        return;
    };
    let env = TestEnv::new();
    let file = wasm.to_string_lossy().into_owned();
    let out = env.run(&["plugin", "check", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let exports = text
        .lines()
        .find(|l| l.starts_with("exports:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(exports.ends_with(" warden:plugin/observe@0.3.0"), "{text}");
    let toolchain = text
        .lines()
        .find(|l| l.starts_with("toolchain:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(toolchain.contains("exports"), "{text}");
    assert!(toolchain.contains("never calls"), "{text}");

    let out = env.run(&["plugin", "check", "--json", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(
        value["exports"],
        serde_json::json!(["warden:plugin/observe@0.3.0"])
    );
    assert_eq!(value["toolchain_exports"], serde_json::json!(["exports"]));
}
