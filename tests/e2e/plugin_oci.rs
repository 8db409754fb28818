//! OCI distribution of plugins through the real binary and a real registry: CNCF Distribution
//! (Debian's `docker-registry`) started on a free loopback port for each test and killed when
//! it ends, and the `oras` Python SDK as a third-party client. A missing tool prints
//! `SKIP <test>: <tool> not installed` and passes, except under `CI=true`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

pub(crate) mod registry;

use registry::{Registry, have, have_oras, have_registry, oras};

fn user_config_path(env: &TestEnv) -> PathBuf {
    env.root().join("config").join("warden").join("config.toml")
}

fn cached(env: &TestEnv, sha: &str) -> PathBuf {
    env.state_home()
        .join("plugins")
        .join("oci")
        .join("sha256")
        .join(format!("{sha}.wasm"))
}

fn sha256_of(path: &Path) -> String {
    warden::plugin::sha256_hex(&std::fs::read(path).unwrap())
}

/// `warden plugin push FILE REF`: its printed digest reference.
fn push(env: &TestEnv, file: &Path, reference: &str) -> String {
    let out = env.run(&["plugin", "push", file.to_str().unwrap(), reference]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out).trim().to_owned()
}

/// A `warden run` turn's JSON.
fn run_turn(env: &TestEnv, prompt: &str) -> Value {
    let out = env.run(&["run", "--json", prompt]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(stdout(&out).trim()).unwrap()
}

/// Push, add, run with the plugin acting; a third-party client sees the wasm layout; with the
/// registry gone the plugin still loads from the cache; without its cache file, one error
/// names the plugin, its source and the fix.
#[test]
fn pushed_plugin_is_added_runs_offline_and_reads_as_a_wasm_artifact() {
    let test = "pushed_plugin_is_added_runs_offline_and_reads_as_a_wasm_artifact";
    if !have_registry(test) || !have_oras(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let wasm = fixtures::keyword_context();
    let pinned = push(&env, &wasm, &registry.oci("team/kw:1.0"));
    let prefix = format!("{}@sha256:", registry.oci("team/kw"));
    assert!(pinned.starts_with(&prefix), "{pinned}");

    // A third-party client reads the standard media types and the component's bytes.
    let seen: Value = serde_json::from_str(&oras(&[
        "inspect",
        &format!("{}/team/kw:1.0", registry.addr()),
    ]))
    .unwrap();
    assert_eq!(
        seen["config_media_type"],
        "application/vnd.wasm.config.v0+json"
    );
    assert_eq!(
        seen["layer_media_types"],
        serde_json::json!(["application/wasm"])
    );
    assert_eq!(seen["layer_sha256"], sha256_of(&wasm));
    assert_eq!(seen["config"]["architecture"], "wasm");
    assert_eq!(seen["config"]["os"], "wasip2");
    assert_eq!(
        seen["config"]["layerDigests"],
        serde_json::json!([format!("sha256:{}", sha256_of(&wasm))])
    );
    // The sample's one export, at whichever WIT version it is built for.
    let exports = seen["config"]["component"]["exports"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(exports.len(), 1, "{seen}");
    assert!(
        exports[0]
            .as_str()
            .is_some_and(|e| e.starts_with("warden:plugin/intercept@0.")),
        "{seen}"
    );
    assert!(seen["config"]["created"].is_string(), "{seen}");

    env.user_config("# my settings\n[model]\nprovider = \"echo\" # offline\n");
    let out = env.run(&[
        "plugin",
        "add",
        &pinned,
        "--config",
        "word=deploy",
        "--config",
        "context=Deploys go through CI.",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(user_config_path(&env)).unwrap();
    assert!(text.starts_with("# my settings\n"), "{text}");
    assert!(text.contains("provider = \"echo\" # offline"), "{text}");
    assert!(text.contains("name = \"kw\""), "{text}");
    assert!(text.contains("kind = \"interceptor\""), "{text}");
    assert!(text.contains(&format!("source = \"{pinned}\"")), "{text}");
    assert!(
        text.contains(&format!("sha256 = \"{}\"", sha256_of(&wasm))),
        "{text}"
    );
    assert_eq!(
        std::fs::read(cached(&env, &sha256_of(&wasm))).unwrap(),
        std::fs::read(&wasm).unwrap()
    );

    let turn = run_turn(&env, "how do I deploy this?");
    assert!(
        turn["answer"]
            .as_str()
            .unwrap()
            .contains("(1 user, 1 system)"),
        "{turn}"
    );

    // The same name again is refused, pointing at `update`.
    let out = env.run(&["plugin", "add", &registry.oci("team/kw:1.0")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("warden plugin update kw"),
        "{}",
        stderr(&out)
    );

    // Offline: the registry is gone, the plugin loads from the cache.
    drop(registry);
    let turn = run_turn(&env, "how do I deploy this?");
    assert!(
        turn["answer"]
            .as_str()
            .unwrap()
            .contains("(1 user, 1 system)"),
        "{turn}"
    );

    // A cache file whose bytes changed is refused by the pin.
    let file = cached(&env, &sha256_of(&wasm));
    std::fs::copy(fixtures::event_counter(), &file).unwrap();
    let out = env.run(&["run", "how do I deploy this?"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // The fix named is fetching it again, not re-pinning what the registry served.
    let err = stderr(&out);
    assert!(
        err.contains("was changed since it was fetched from oci://"),
        "{err}"
    );
    assert!(
        err.contains("`warden plugin update kw` fetches it again"),
        "{err}"
    );
    assert!(!err.contains("plugin pin"), "{err}");

    // No cache file: one clear error, and nothing is fetched.
    std::fs::remove_file(cached(&env, &sha256_of(&wasm))).unwrap();
    let out = env.run(&["run", "how do I deploy this?"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    for part in [
        "plugin `kw`",
        &pinned,
        "not in the plugin cache",
        "warden plugin fetch kw",
    ] {
        assert!(err.contains(part), "{part}: {err}");
    }

    // `remove` deletes the entry and keeps the rest of the file.
    let out = env.run(&["plugin", "remove", "kw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(user_config_path(&env)).unwrap();
    assert!(!text.contains("[[plugins]]"), "{text}");
    assert!(text.contains("provider = \"echo\" # offline"), "{text}");
}

/// Under the same tag, a version of another world with more imports is refused without
/// `--accept` (config untouched) and taken with it (comments kept, kind follows the world);
/// the project config is the one written with `--project`.
#[test]
fn update_refuses_a_wider_version_unless_accepted() {
    let test = "update_refuses_a_wider_version_unless_accepted";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let tag = registry.oci("plugins/helper:stable");
    push(&env, &fixtures::keyword_context(), &tag);
    let project = env.write(
        ".warden/config.toml",
        "# project plugins\n[worker]\nmax_steps = 8 # keep turns short\n",
    );
    let out = env.run(&["plugin", "add", &tag, "--kind", "tool"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--kind tool does not match the component, which is interceptor"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["plugin", "add", &tag, "--project", "--config", "word=x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let added = std::fs::read_to_string(&project).unwrap();
    assert!(added.contains("name = \"helper\""), "{added}");
    assert!(!user_config_path(&env).exists());
    // A project's registry is contacted only once the project is trusted.
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let out = env.run(&["plugin", "update", "helper"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("up to date"), "{}", stdout(&out));

    let tool = fixtures::grep_tool();
    push(&env, &tool, &tag);
    let out = env.run(&["plugin", "update", "helper"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let (said, err) = (stdout(&out), stderr(&out));
    assert!(said.contains("interceptor -> tool"), "{said}");
    assert!(said.contains("search_text"), "{said}");
    assert!(said.contains("+ wasi:filesystem/"), "{said}");
    assert!(err.contains("--accept"), "{err}");
    assert_eq!(std::fs::read_to_string(&project).unwrap(), added);

    let out = env.run(&["plugin", "update", "helper", "--accept"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&project).unwrap();
    assert!(text.starts_with("# project plugins\n"), "{text}");
    assert!(text.contains("max_steps = 8 # keep turns short"), "{text}");
    assert!(text.contains("kind = \"tool\""), "{text}");
    assert!(
        text.contains(&format!("sha256 = \"{}\"", sha256_of(&tool))),
        "{text}"
    );
    assert!(text.contains(&format!("{tag}@sha256:")), "{text}");
    assert!(cached(&env, &sha256_of(&tool)).is_file());
}

/// A registry with basic auth: refused without credentials (401 named), served with the
/// Docker config's.
#[test]
fn credentials_come_from_the_docker_config() {
    let test = "credentials_come_from_the_docker_config";
    if !have_registry(test) || !have(test, "htpasswd", &["htpasswd", "-nbB", "u", "p"]) {
        return;
    }
    let line = Command::new("htpasswd")
        .args(["-nbB", "pusher", "s3cret"])
        .output()
        .unwrap();
    let registry = Registry::start(Some(&String::from_utf8(line.stdout).unwrap()));
    let env = TestEnv::new();
    let wasm = fixtures::keyword_context();
    let tag = registry.oci("private/kw:1");
    let out = env.run(&["plugin", "push", wasm.to_str().unwrap(), &tag]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("401"), "{err}");
    assert!(err.contains("no credentials were sent"), "{err}");

    let docker = env.root().join("docker");
    std::fs::create_dir_all(&docker).unwrap();
    // base64("pusher:s3cret")
    std::fs::write(
        docker.join("config.json"),
        format!(
            "{{\"auths\":{{\"{}\":{{\"auth\":\"cHVzaGVyOnMzY3JldA==\"}}}}}}",
            registry.addr()
        ),
    )
    .unwrap();
    let with_docker = |args: &[&str]| {
        let mut cmd = env.command();
        cmd.env("DOCKER_CONFIG", &docker).args(args);
        crate::support::output_within(cmd, crate::support::HANG_LIMIT)
    };
    let out = with_docker(&["plugin", "push", wasm.to_str().unwrap(), &tag]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = with_docker(&["plugin", "add", &tag, "--config", "word=x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(cached(&env, &sha256_of(&wasm)).is_file());
}

/// What is not a plugin component is refused with the reason: another kind of artifact, a
/// layer that is no component, a layer over `policy.max_component_mb`, a tag that does not
/// exist, bytes that do not match their digest.
#[test]
fn artifacts_that_are_not_plugins_are_refused() {
    let test = "artifacts_that_are_not_plugins_are_refused";
    if !have_registry(test) || !have_oras(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let file = env.root().join("blob.wasm");
    std::fs::write(&file, b"not a component at all").unwrap();
    let path = file.to_str().unwrap();
    let at = |rest: &str| format!("{}/{rest}", registry.addr());
    oras(&[
        "push",
        &at("odd/text:1"),
        path,
        "text/plain",
        "application/vnd.oci.image.config.v1+json",
    ]);
    oras(&[
        "push",
        &at("odd/junk:1"),
        path,
        "application/wasm",
        "application/vnd.wasm.config.v0+json",
    ]);
    let big = env.root().join("big.wasm");
    std::fs::write(&big, vec![0u8; 2 << 20]).unwrap();
    oras(&[
        "push",
        &at("odd/big:1"),
        big.to_str().unwrap(),
        "application/wasm",
        "application/vnd.wasm.config.v0+json",
    ]);
    env.managed_config("[policy]\nmax_component_mb = 1\n");

    for (rest, expected) in [
        (
            "odd/text:1",
            "not a wasm component artifact: its config is application/vnd.oci.image.config.v1+json",
        ),
        ("odd/junk:1", "not a WebAssembly binary"),
        (
            "odd/big:1",
            "over the 1048576-byte cap (policy.max_component_mb)",
        ),
        ("odd/missing:1", "not found in the registry"),
    ] {
        let out = env.run(&["plugin", "add", &registry.oci(rest)]);
        assert_eq!(out.status.code(), Some(2), "{rest}: {}", stdout(&out));
        assert!(stderr(&out).contains(expected), "{rest}: {}", stderr(&out));
    }
    assert!(!user_config_path(&env).exists());

    // A registry serving other bytes than the digest names: refused, nothing cached.
    let wasm = fixtures::keyword_context();
    push(&env, &wasm, &registry.oci("odd/tampered:1"));
    let blob = registry.blob(&format!("sha256:{}", sha256_of(&wasm)));
    let mut bytes = std::fs::read(&blob).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&blob, bytes).unwrap();
    let out = env.run(&["plugin", "add", &registry.oci("odd/tampered:1")]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("component layer: digest mismatch"), "{err}");
    assert!(err.contains(&sha256_of(&wasm)), "{err}");
    assert!(!cached(&env, &sha256_of(&wasm)).exists());
    assert!(!user_config_path(&env).exists());

    let out = env.run(&["plugin", "push", path, &registry.oci("odd/push:1")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not a WebAssembly binary"),
        "{}",
        stderr(&out)
    );
}

/// Plain HTTP to a registry elsewhere is refused before anything connects; an unreachable
/// registry is named; configured sources must be pinned and stand alone.
#[test]
fn transport_and_configuration_errors_are_clear() {
    let env = TestEnv::new();
    let wasm = fixtures::keyword_context();
    for args in [
        vec![
            "plugin",
            "push",
            wasm.to_str().unwrap(),
            "oci://registry.example/x:1",
            "--plain-http",
        ],
        vec!["plugin", "add", "oci://10.1.2.3:5000/x:1", "--plain-http"],
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("plain HTTP is only used for a registry on this machine"),
            "{}",
            stderr(&out)
        );
    }
    // A loopback port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = env.run(&["plugin", "add", &format!("oci://127.0.0.1:{port}/x:1")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("registry 127.0.0.1:{port} cannot be reached")),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["plugin", "add", "oci://h/Upper:1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("lowercase"), "{}", stderr(&out));

    let hex = "0".repeat(64);
    for (entry, key, why) in [
        (
            "source = \"oci://127.0.0.1:5000/kw:1\"\nsha256 = \"HEX\"\n".to_owned(),
            "plugins.kw.source",
            "names a tag, not a digest",
        ),
        (
            "path = \"kw.wasm\"\nsource = \"oci://h/kw@sha256:HEX\"\nsha256 = \"HEX\"\n".to_owned(),
            "plugins.kw.source",
            "not both",
        ),
        (
            "source = \"oci://h/kw@sha256:HEX\"\n".to_owned(),
            "plugins.kw.sha256",
            "needs the `sha256`",
        ),
    ] {
        let entry = entry.replace("HEX", &hex);
        env.user_config(&format!(
            "[[plugins]]\nname = \"kw\"\nkind = \"interceptor\"\n{entry}"
        ));
        let out = env.run(&["run", "hello"]);
        assert_eq!(out.status.code(), Some(2), "{entry}");
        let err = stderr(&out);
        assert!(err.contains(key) && err.contains(why), "{entry}: {err}");
    }
}
