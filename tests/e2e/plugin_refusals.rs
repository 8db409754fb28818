//! Refusals of the plugin commands name the plugin once: no `plugin plugin kw`, no
//! `…: plugin kw: plugin kw …`, no prefix said twice.

use std::path::Path;

use warden_tests::fixtures;

use crate::support::{TestEnv, plugin_entry, stderr};

/// The first prefix `text` repeats: two equal `: `-separated parts in a row, or a word said
/// twice in a row (`plugin plugin`, `error: error`).
fn doubled(text: &str) -> Option<String> {
    for line in text.lines() {
        let parts: Vec<&str> = line.split(": ").collect();
        if let Some(w) = parts.windows(2).find(|w| w[0] == w[1]) {
            return Some(w[0].to_owned());
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(w) = words
            .windows(2)
            .find(|w| w[0] == w[1] && w[0].chars().all(char::is_alphabetic))
        {
            return Some(w[0].to_owned());
        }
        // `a: plugin kw (…): refused … plugin kw …` is fine; `plugin kw: … plugin kw:` is not.
        for (i, part) in parts.iter().enumerate() {
            if part.starts_with("plugin ") && parts[i + 1..].contains(part) {
                return Some((*part).to_owned());
            }
        }
    }
    None
}

fn refused(env: &TestEnv, args: &[&str]) -> String {
    let out = env.run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    stderr(&out)
}

fn signed_only(env: &TestEnv) {
    env.managed_config("[policy]\nrequire_signed = true\ntrusted_keys = []\n");
}

fn kw_entry(path: &Path) -> String {
    plugin_entry("interceptor", "kw", path, "", &[("word", "x")])
}

#[test]
fn the_detector_finds_what_it_looks_for() {
    assert_eq!(
        doubled("warden: plugin plugin kw (x): refused").as_deref(),
        Some("plugin")
    );
    assert_eq!(doubled("error: error: x").as_deref(), Some("error"));
    assert_eq!(
        doubled("f.toml: plugin kw: a: plugin kw: b").as_deref(),
        Some("plugin kw")
    );
    assert_eq!(doubled("f.toml: plugin kw (p): refused by policy"), None);
}

#[test]
fn pin_under_require_signed_names_the_plugin_once() {
    let env = TestEnv::new();
    env.user_config(&format!(
        "[model]\nprovider = \"echo\"\n\n{}",
        kw_entry(&fixtures::keyword_context())
    ));
    signed_only(&env);
    let err = refused(&env, &["plugin", "pin", "kw"]);
    assert!(err.contains("policy.require_signed"), "{err}");
    assert!(err.contains("plugin kw ("), "{err}");
    assert_eq!(doubled(&err), None, "{err}");
}

#[test]
fn pin_of_a_resolver_under_require_signed_says_resolver_once() {
    let env = TestEnv::new();
    env.user_config(&format!(
        "[model]\nprovider = \"echo\"\n\n[fileref]\nresolver = {:?}\n",
        fixtures::file_ref().display().to_string()
    ));
    signed_only(&env);
    let err = refused(&env, &["plugin", "pin", "resolver"]);
    assert!(err.contains("policy.require_signed"), "{err}");
    assert!(!err.contains("plugin resolver"), "{err}");
    assert_eq!(doubled(&err), None, "{err}");
}

#[test]
fn run_refusals_name_the_plugin_once() {
    let env = TestEnv::new();
    env.user_config(&format!(
        "[model]\nprovider = \"echo\"\n\n{}",
        kw_entry(&fixtures::keyword_context())
    ));
    signed_only(&env);
    let err = refused(&env, &["run", "hi"]);
    assert_eq!(doubled(&err), None, "{err}");
    env.managed_config("[policy]\nallowed_sources = [\"/nowhere/*\"]\n");
    let err = refused(&env, &["run", "hi"]);
    assert_eq!(doubled(&err), None, "{err}");
    let err = refused(&env, &["plugin", "pin", "kw"]);
    assert_eq!(doubled(&err), None, "{err}");
}
