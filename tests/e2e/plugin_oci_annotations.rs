//! `warden plugin push` carries the package metadata (`plugin package`) in the standard
//! `org.opencontainers.image.*` annotations of the manifest, as a third-party client reads them.

use warden_tests::fixtures;

use crate::plugin_oci::registry::{Registry, have_oras, have_registry, oras};
use crate::support::{TestEnv, stderr};

#[test]
fn push_annotates_the_manifest_with_the_package_metadata() {
    let test = "push_annotates_the_manifest_with_the_package_metadata";
    if !have_registry(test) || !have_oras(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let packaged = env.root().join("kw.wasm");
    let out = env.run(&[
        "plugin",
        "package",
        &fixtures::keyword_context().to_string_lossy(),
        "--name",
        "keyword-context",
        "--version",
        "1.4.0",
        "--description",
        "Adds context when a keyword appears",
        "--authors",
        "Ada <ada@example.com>",
        "--source",
        "https://example.com/kw.git",
        "--licenses",
        "Apache-2.0",
        "--homepage",
        "https://example.com/kw",
        "--revision",
        "0123abc",
        "-o",
        &packaged.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&[
        "plugin",
        "push",
        &packaged.to_string_lossy(),
        &registry.oci("team/kw:stable"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let seen: serde_json::Value = serde_json::from_str(&oras(&[
        "inspect",
        &format!("{}/team/kw:stable", registry.addr()),
    ]))
    .unwrap();
    let annotations = &seen["annotations"];
    for (key, value) in [
        ("org.opencontainers.image.title", "keyword-context"),
        // The package's version, not the tag pushed.
        ("org.opencontainers.image.version", "1.4.0"),
        (
            "org.opencontainers.image.description",
            "Adds context when a keyword appears",
        ),
        ("org.opencontainers.image.authors", "Ada <ada@example.com>"),
        (
            "org.opencontainers.image.source",
            "https://example.com/kw.git",
        ),
        ("org.opencontainers.image.licenses", "Apache-2.0"),
        ("org.opencontainers.image.url", "https://example.com/kw"),
        ("org.opencontainers.image.revision", "0123abc"),
    ] {
        assert_eq!(annotations[key], value, "{key}: {seen}");
    }
    assert!(
        annotations["org.opencontainers.image.created"].is_string(),
        "{seen}"
    );

    // Without metadata, the tag stays the version.
    let out = env.run(&[
        "plugin",
        "push",
        &fixtures::keyword_context().to_string_lossy(),
        &registry.oci("team/plain:2.0"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let seen: serde_json::Value = serde_json::from_str(&oras(&[
        "inspect",
        &format!("{}/team/plain:2.0", registry.addr()),
    ]))
    .unwrap();
    assert_eq!(
        seen["annotations"]["org.opencontainers.image.version"],
        "2.0"
    );
    assert!(seen["annotations"]["org.opencontainers.image.title"].is_null());
}
