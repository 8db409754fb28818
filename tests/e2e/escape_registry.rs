//! Escapes through a plugin registry, through the real binary: credentials sent where nobody
//! configured them, an untrusted project's registry contacted, a registry that answers without
//! end or at a trickle, a tag moved back to an older version. Each test names the promise it
//! tests; the hostile registry is `escape_registry/hostile.rs`, the real one the
//! `docker-registry` of the `plugin_oci` tests.

#![allow(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use warden_tests::fixtures;

use crate::plugin_oci::registry::{Registry, have_registry};
use crate::support::{HANG_LIMIT, TestEnv, stderr, stdout};

mod hostile;

use hostile::{Behaviour, Hostile};

/// `WARDEN_REGISTRY_USER` and `WARDEN_REGISTRY_PASSWORD` as a person exports them for their own
/// registry.
const PAIR: [(&str, &str); 2] = [
    ("WARDEN_REGISTRY_USER", "me"),
    ("WARDEN_REGISTRY_PASSWORD", "hunter2"),
];

/// `Basic base64("me:hunter2")`.
const PAIR_BASIC: &str = "Basic bWU6aHVudGVyMg==";

/// What a finished `warden` process left: exit code, output, and its peak resident memory.
struct Measured {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    peak_rss_kib: i64,
}

/// Run `warden ARGS` with `vars` added to the test environment, to completion (killed, and the
/// test failed, past the hang limit), measuring its peak RSS (its `VmHWM`, read every 5 ms while it runs).
fn run_measured(env: &TestEnv, vars: &[(&str, &str)], args: &[&str]) -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (dir.path().join("out"), dir.path().join("err"));
    let mut cmd = env.command();
    cmd.args(args)
        .stdout(Stdio::from(std::fs::File::create(&out_path).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err_path).unwrap()));
    for (key, value) in vars {
        cmd.env(key, value);
    }
    // Reaped by `wait4` below, which also reports its resource use.
    #[allow(clippy::zombie_processes)]
    let child = cmd.spawn().unwrap();
    let pid = i32::try_from(child.id()).unwrap();
    let started = Instant::now();
    let mut status = 0;
    // SAFETY: `rusage` is plain data the kernel fills; zeroed is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // The child's own high-water mark, read while it runs: `ru_maxrss` also counts this test
    // process's memory, which the kernel carries into a child's figure at its `exec`.
    let mut peak_kib = 0;
    loop {
        peak_kib = peak_kib.max(high_water_kib(pid).unwrap_or(0));
        // SAFETY: `pid` is our own child, not yet reaped; `status` and `usage` are valid.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break;
        }
        if started.elapsed() > HANG_LIMIT {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("warden {args:?} hung past {HANG_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        peak_kib > 0,
        "no memory figure was read for warden {args:?}"
    );
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Measured {
        code,
        stdout: std::fs::read_to_string(out_path).unwrap(),
        stderr: std::fs::read_to_string(err_path).unwrap(),
        peak_rss_kib: peak_kib,
    }
}

/// `VmHWM` of live process `pid` in KiB (`None` once it has exited).
fn high_water_kib(pid: i32) -> Option<i64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Put `wasm` in the plugin cache as the registry would have, so that an entry pinning it
/// loads (and can be trusted) without any registry.
fn cache_component(env: &TestEnv, wasm: &Path) -> String {
    let bytes = std::fs::read(wasm).unwrap();
    let sha = warden::plugin::sha256_hex(&bytes);
    let dir = env.state_home().join("plugins").join("oci").join("sha256");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{sha}.wasm")), bytes).unwrap();
    sha
}

/// A project config declaring the plugin `guard` from `source` pinned to component `sha`.
fn guard_entry(source: &str, sha: &str) -> String {
    format!(
        "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\nsource = \"{source}@sha256:{}\"\nsha256 = \"{sha}\"\n",
        "a".repeat(64)
    )
}

fn with_credentials(seen: &[hostile::Seen]) -> Vec<String> {
    seen.iter()
        .filter_map(|s| s.authorization.clone())
        .collect()
}

// ---- Credentials and trust -----------------------------------------------------------------

/// Promise: `warden plugin update` never contacts the registry an untrusted project names.
#[test]
fn untrusted_project_registry_is_never_contacted() {
    let registry = Hostile::start(Behaviour::Challenge);
    let env = TestEnv::new();
    let sha = cache_component(&env, &fixtures::keyword_context());
    env.untrusted_project_config(&guard_entry(&registry.oci("evil/guard:1"), &sha));
    let out = run_measured(&env, &PAIR, &["plugin", "update"]);
    assert!(
        registry.seen().is_empty(),
        "contacted: {:?}\n{}",
        registry.seen(),
        out.stderr
    );
    assert!(out.stderr.contains("warden trust"), "{}", out.stderr);
    assert!(out.stderr.contains("guard"), "{}", out.stderr);
    assert_ne!(out.code, Some(0), "{}", out.stdout);
}

/// Promise: a trusted project whose cached component is gone is still trusted for the
/// purpose of fetching it again by its pin: `warden plugin update` restores it, and nothing
/// needs trusting again.
#[test]
fn trusted_project_with_its_cache_gone_is_fetched_again() {
    let test = "trusted_project_with_its_cache_gone_is_fetched_again";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let wasm = fixtures::keyword_context();
    let tag = registry.oci("team/kw:1");
    push(&env, &wasm, &tag);
    let out = env.run(&["plugin", "add", &tag, "--project", "--config", "word=x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sha = warden::plugin::sha256_hex(&std::fs::read(&wasm).unwrap());
    let cached = env
        .state_home()
        .join("plugins")
        .join("oci")
        .join("sha256")
        .join(format!("{sha}.wasm"));
    std::fs::remove_file(&cached).unwrap();

    let out = env.run(&["plugin", "update"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(cached.is_file());
    // Still trusted: a run loads the project's plugin without asking.
    let out = env.run(&["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Promise: the `WARDEN_REGISTRY_*` pair is never sent to a registry nobody configured it for,
/// even one a trusted project names, and a project cannot configure it itself; the person is
/// told how to send it there.
#[test]
fn unconfigured_registry_gets_no_credentials() {
    let registry = Hostile::start(Behaviour::Challenge);
    let env = TestEnv::new();
    let sha = cache_component(&env, &fixtures::keyword_context());
    let project = format!(
        "{}\n[registries.hosts.\"{}\"]\n",
        guard_entry(&registry.oci("evil/guard:1"), &sha),
        registry.addr()
    );
    env.untrusted_project_config(&project);
    let trusted = env.trust();
    assert_eq!(trusted.status.code(), Some(0), "{}", stderr(&trusted));
    let out = run_measured(&env, &PAIR, &["plugin", "update"]);
    assert!(!registry.seen().is_empty(), "{}", out.stderr);
    assert_eq!(
        with_credentials(&registry.seen()),
        Vec::<String>::new(),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains(&format!("[registries.hosts.\"{}\"]", registry.addr())),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("cannot be set by a project"),
        "{}",
        out.stderr
    );
}

/// Promise: a registry the user configured gets the credentials named for it.
#[test]
fn configured_registry_gets_its_credentials() {
    let registry = Hostile::start(Behaviour::Challenge);
    let env = TestEnv::new();
    env.user_config(&format!("[registries.hosts.\"{}\"]\n", registry.addr()));
    let out = run_measured(
        &env,
        &PAIR,
        &["plugin", "add", &registry.oci("team/guard:1")],
    );
    assert!(
        with_credentials(&registry.seen()).contains(&PAIR_BASIC.to_owned()),
        "{:?}\n{}",
        registry.seen(),
        out.stderr
    );

    // Variables of the person's choosing, for that host only.
    let registry = Hostile::start(Behaviour::Challenge);
    env.user_config(&format!(
        "[registries.hosts.\"{}\"]\nusername_env = \"TEAM_USER\"\npassword_env = \"TEAM_TOKEN\"\n",
        registry.addr()
    ));
    let out = run_measured(
        &env,
        &[("TEAM_USER", "me"), ("TEAM_TOKEN", "hunter2")],
        &["plugin", "add", &registry.oci("team/guard:1")],
    );
    assert!(
        with_credentials(&registry.seen()).contains(&PAIR_BASIC.to_owned()),
        "{:?}\n{}",
        registry.seen(),
        out.stderr
    );
}

/// Promise: where a registry asks for a bearer token, its token service gets the
/// credentials only when the registry is configured for them, and the token is what is sent
/// back to the registry.
#[test]
fn token_service_gets_credentials_only_for_a_configured_registry() {
    let registry = Hostile::start(Behaviour::Bearer {
        endless: false,
        limit: 0,
    });
    let env = TestEnv::new();
    let out = run_measured(
        &env,
        &PAIR,
        &["plugin", "add", &registry.oci("team/guard:1")],
    );
    let seen = registry.seen();
    assert!(
        seen.iter().any(|s| s.path.starts_with("/token")),
        "{seen:?}"
    );
    assert!(
        !with_credentials(&seen).contains(&PAIR_BASIC.to_owned()),
        "{seen:?}\n{}",
        out.stderr
    );

    let registry = Hostile::start(Behaviour::Bearer {
        endless: false,
        limit: 0,
    });
    env.user_config(&format!("[registries.hosts.\"{}\"]\n", registry.addr()));
    let out = run_measured(
        &env,
        &PAIR,
        &["plugin", "add", &registry.oci("team/guard:1")],
    );
    let seen = registry.seen();
    let token_request = seen.iter().find(|s| s.path.starts_with("/token"));
    assert_eq!(
        token_request
            .and_then(|s| s.authorization.clone())
            .as_deref(),
        Some(PAIR_BASIC),
        "{seen:?}"
    );
    assert!(
        token_request.is_some_and(|s| s.path.contains("scope=repository%3Ateam%2Fguard%3Apull")),
        "{seen:?}"
    );
    assert!(
        seen.iter().any(|s| s.path.contains("/manifests/")
            && s.authorization.as_deref() == Some("Bearer t0k3n")),
        "{seen:?}"
    );
    assert!(
        out.stderr.contains("not found in the registry"),
        "{}",
        out.stderr
    );
}

/// `warden plugin add REFERENCE` against `registry` fails (exit 1) with an error naming the
/// registry and each of `words`, its peak memory far below what a registry without end sends;
/// the environment it ran in, for further checks.
fn assert_cut(registry: &Hostile, reference: &str, case: &str, words: &[&str]) -> TestEnv {
    let env = TestEnv::new();
    let out = run_measured(&env, &[], &["plugin", "add", &registry.oci(reference)]);
    eprintln!(
        "{case}: peak RSS {} KiB, registry sent {} bytes",
        out.peak_rss_kib,
        registry.sent()
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains(&registry.addr()), "{}", out.stderr);
    for word in words {
        assert!(out.stderr.contains(word), "{word}: {}", out.stderr);
    }
    assert!(
        out.peak_rss_kib < 128 * 1024,
        "peak RSS {} KiB after the registry sent {} bytes",
        out.peak_rss_kib,
        registry.sent()
    );
    env
}

// ---- Hostile responses ---------------------------------------------------------------------

/// Promise: a registry that streams a manifest without end cannot grow warden's memory: the
/// response is cut at the manifest cap with an error naming the registry and the cap.
#[test]
fn endless_manifest_is_cut_at_its_cap() {
    // The registry stops by itself after 512 MiB, so that a warden without a cap fails this
    // test without exhausting the machine.
    let registry = Hostile::start(Behaviour::EndlessManifest { limit: 512 << 20 });
    assert_cut(
        &registry,
        "evil/big:1",
        "endless manifest",
        &["manifest", "4 MiB"],
    );
}

/// Promise: a token service that answers without end cannot grow warden's memory: the
/// response is cut at the token cap.
#[test]
fn endless_token_response_is_cut_at_its_cap() {
    let registry = Hostile::start(Behaviour::Bearer {
        endless: true,
        limit: 512 << 20,
    });
    assert_cut(
        &registry,
        "evil/big:1",
        "endless token",
        &["access token", "1 MiB"],
    );
}

/// Promise: a component layer served without end is cut at the size its manifest declares
/// (never more than `policy.max_component_mb`), with bounded memory and nothing cached.
#[test]
fn endless_layer_is_cut_at_its_declared_size() {
    let registry = Hostile::start(Behaviour::EndlessLayer { limit: 512 << 20 });
    let env = assert_cut(
        &registry,
        "evil/layer:1",
        "endless layer",
        &["component layer", "1000 bytes"],
    );
    let cache = env.state_home().join("plugins").join("oci").join("sha256");
    let cached = std::fs::read_dir(&cache).map_or(0, |d| d.count());
    assert_eq!(cached, 0, "{}", cache.display());
}

/// Promise: a registry that trickles its answer cannot hold warden past the deadline of one
/// request (`registries.deadline_s`); the error names the registry, what was fetched and the
/// limit.
#[test]
fn trickling_manifest_ends_at_the_deadline() {
    let registry = Hostile::start(Behaviour::TrickleManifest);
    let env = TestEnv::new();
    env.user_config("[registries]\ndeadline_s = 3\n");
    let started = Instant::now();
    let out = run_measured(&env, &[], &["plugin", "add", &registry.oci("evil/slow:1")]);
    let took = started.elapsed();
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains(&registry.addr()), "{}", out.stderr);
    assert!(out.stderr.contains("manifest"), "{}", out.stderr);
    assert!(
        out.stderr.contains("registries.deadline_s = 3"),
        "{}",
        out.stderr
    );
    eprintln!(
        "trickling manifest: ended after {took:?}, {} bytes received",
        registry.sent()
    );

    // Silence longer than the idle timeout ends it sooner.
    let registry = Hostile::start(Behaviour::TrickleManifest);
    env.user_config("[registries]\ndeadline_s = 60\nidle_timeout_s = 1\n");
    let out = run_measured(&env, &[], &["plugin", "add", &registry.oci("evil/slow:1")]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains(&registry.addr()), "{}", out.stderr);
    assert!(
        out.stderr.contains("registries.idle_timeout_s = 1"),
        "{}",
        out.stderr
    );
}

// ---- Downgrades ----------------------------------------------------------------------------

/// `wasm` with `version` in its metadata, written beside the environment.
fn versioned(env: &TestEnv, wasm: &Path, version: &str) -> PathBuf {
    let out_file = env.root().join(format!("kw-{version}.wasm"));
    let out = env.run(&[
        "plugin",
        "package",
        wasm.to_str().unwrap(),
        "--version",
        version,
        "--output",
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out_file
}

fn push(env: &TestEnv, file: &Path, reference: &str) {
    let out = env.run(&["plugin", "push", file.to_str().unwrap(), reference]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Promise: `warden plugin update` does not follow a tag moved back to a lower version unless
/// `--allow-downgrade`; the change of version shows as a downgrade.
#[test]
fn update_refuses_a_downgrade_unless_allowed() {
    let test = "update_refuses_a_downgrade_unless_allowed";
    if !have_registry(test) {
        return;
    }
    let registry = Registry::start(None);
    let env = TestEnv::new();
    let wasm = fixtures::keyword_context();
    let (newer, older) = (
        versioned(&env, &wasm, "2.0.0"),
        versioned(&env, &wasm, "1.4.0"),
    );
    let tag = registry.oci("team/kw:stable");
    push(&env, &newer, &tag);
    let config = env.user_config("[model]\nprovider = \"echo\"\n");
    let out = env.run(&["plugin", "add", &tag, "--config", "word=x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let added = std::fs::read_to_string(&config).unwrap();

    push(&env, &older, &tag);
    let out = env.run(&["plugin", "update", "kw"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stdout(&out).contains("2.0.0 -> 1.4.0"), "{}", stdout(&out));
    assert!(stdout(&out).contains("downgrade"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("--allow-downgrade"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), added);

    let out = env.run(&["plugin", "update", "kw", "--allow-downgrade"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("2.0.0 -> 1.4.0"), "{}", stdout(&out));
    let sha = warden::plugin::sha256_hex(&std::fs::read(&older).unwrap());
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains(&format!("sha256 = \"{sha}\"")), "{text}");

    // A higher version is taken without the flag.
    push(&env, &newer, &tag);
    let out = env.run(&["plugin", "update", "kw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("1.4.0 -> 2.0.0"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("downgrade"), "{}", stdout(&out));
}

// ---- Hostile answers to a push ---------------------------------------------------------------

/// Promise: a registry that answers a push without end cannot grow warden's memory (each
/// answer read at most to the error cap), and one that trickles its answer cannot hold the push
/// past `registries.deadline_s`; both errors name the registry.
#[test]
fn a_push_answered_without_end_or_at_a_trickle_is_cut() {
    let wasm = fixtures::keyword_context();
    let registry = Hostile::start(Behaviour::EndlessPushAnswer {
        limit: 512 << 20,
        trickle: false,
    });
    let env = TestEnv::new();
    let reference = registry.oci("evil/push:1");
    let out = run_measured(
        &env,
        &[],
        &["plugin", "push", wasm.to_str().unwrap(), &reference],
    );
    eprintln!(
        "endless push answer: peak RSS {} KiB, registry sent {} bytes",
        out.peak_rss_kib,
        registry.sent()
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains(&registry.addr()), "{}", out.stderr);
    assert!(
        out.peak_rss_kib < 128 * 1024,
        "peak RSS {} KiB after the registry sent {} bytes",
        out.peak_rss_kib,
        registry.sent()
    );

    let registry = Hostile::start(Behaviour::EndlessPushAnswer {
        limit: 0,
        trickle: true,
    });
    env.user_config("[registries]\ndeadline_s = 3\n");
    let started = Instant::now();
    let reference = registry.oci("evil/push:1");
    let out = run_measured(
        &env,
        &[],
        &["plugin", "push", wasm.to_str().unwrap(), &reference],
    );
    let took = started.elapsed();
    eprintln!("trickling push answer: ended after {took:?}");
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains(&registry.addr()), "{}", out.stderr);
    assert!(
        out.stderr.contains("registries.deadline_s = 3"),
        "{}",
        out.stderr
    );
}
