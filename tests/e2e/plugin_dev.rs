//! `warden plugin dev`, through the real binary: a project's plugin under development loads
//! for this user without `warden trust`, a rebuild (the file replaced) is picked up by the next
//! run without trust once the person accepts it (the watcher accepts each rebuild it sees;
//! otherwise `plugin dev` again), the project's config file stays byte for byte what it was,
//! `--stop` brings back the trust requirement, the watcher names each new digest, and a managed
//! policy that limits sources refuses it with nothing written.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;

use warden_tests::fixtures;

use crate::support::{HANG_LIMIT, TestEnv, stderr, stdout};

/// The project declares `guard` at `build/guard.wasm`, with config for both samples used as
/// its builds: keyword-context (adds context) and pattern-guard (cancels the prompt).
const PROJECT: &str = "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"../build/guard.wasm\"\n[plugins.config]\nword = \"forbidden\"\ncontext = \"Be careful.\"\npattern = \"forbidden\"\nreason = \"blocked\"\n";

fn build(env: &TestEnv, from: &std::path::Path) -> String {
    let bytes = std::fs::read(from).unwrap();
    // Replaced as a build does: a new file in place of the old.
    let path = env.workspace().join("build/guard.wasm");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, &bytes).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    warden::plugin::sha256_hex(&bytes)
}

fn run_code(env: &TestEnv) -> (Option<i32>, String) {
    let out = env.run(&["run", "--json", "the forbidden thing"]);
    (out.status.code(), stderr(&out))
}

#[test]
fn a_dev_build_loads_without_trust_and_rebuilds_need_none() {
    let env = TestEnv::new();
    let first = build(&env, &fixtures::keyword_context());
    let config = env.untrusted_project_config(PROJECT);
    let original = std::fs::read(&config).unwrap();

    // Untrusted, the project's plugin keeps the run from starting.
    let (code, err) = run_code(&env);
    assert_eq!(code, Some(2), "{err}");

    let out = env.run(&["plugin", "dev", "build/guard.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("dev: guard (interceptor) loaded for this user in "),
        "{text}"
    );
    assert!(text.contains(&format!("  sha256: {first}")), "{text}");
    assert!(
        text.contains(&format!(
            "  file:   {}",
            env.workspace().join("build/guard.wasm").display()
        )),
        "{text}"
    );
    assert!(text.contains("the project's trust is unchanged"), "{text}");

    // Loaded: the run goes on (keyword-context adds its context), and says it is a dev build.
    let (code, err) = run_code(&env);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("plugin `guard` is a dev build"), "{err}");

    // A rebuild nobody accepted is not loaded; accepted by `plugin dev` again, the next run
    // loads the new file, with no `warden trust`.
    let second = build(&env, &fixtures::pattern_guard());
    let (code, err) = run_code(&env);
    assert_ne!(code, Some(0), "{err}");
    assert!(
        err.contains("is not the build `warden plugin dev` accepted"),
        "{err}"
    );
    assert!(err.contains(&format!("sha256 {second}")), "{err}");
    let out = env.run(&["plugin", "dev", "build/guard.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (code, err) = run_code(&env);
    assert_eq!(code, Some(3), "the rebuilt guard cancels: {err}");

    // Stopped: the project's own entry waits for trust again.
    let out = env.run(&["plugin", "dev", "--stop"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("dev: guard is no longer loaded"),
        "{}",
        stdout(&out)
    );
    let (code, err) = run_code(&env);
    assert_eq!(code, Some(2), "{err}");

    // Trusted as it is now, then rebuilt: trust is asked again, unless the build is a dev one.
    assert_eq!(env.trust().status.code(), Some(0));
    assert_eq!(run_code(&env).0, Some(3));
    build(&env, &fixtures::keyword_context());
    let (code, err) = run_code(&env);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("changed since it was trusted"), "{err}");
    let out = env.run(&["plugin", "dev", "build/guard.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(run_code(&env).0, Some(0));
    let out = env.run(&["plugin", "dev", "--stop", "--name", "guard"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    assert_eq!(
        std::fs::read(&config).unwrap(),
        original,
        "the project config changed"
    );
}

/// `warden plugin dev ARGS…` watching, its output lines read as they come; killed when dropped.
pub(crate) struct Watcher {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
}

impl Watcher {
    /// Start `plugin dev` with `args` in `env` and wait until it watches.
    pub(crate) fn start(env: &TestEnv, args: &[&str]) -> Self {
        let mut cmd = env.command();
        cmd.args(["plugin", "dev"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let watcher = Self { child, lines: rx };
        watcher.wait_for("watching ");
        watcher
    }

    /// The next line starting with `prefix` (within the hang limit).
    pub(crate) fn wait_for(&self, prefix: &str) -> String {
        self.wait_for_any(&[prefix])
    }

    /// The next line starting with one of `prefixes` (within the hang limit).
    pub(crate) fn wait_for_any(&self, prefixes: &[&str]) -> String {
        loop {
            match self.lines.recv_timeout(HANG_LIMIT) {
                Ok(line) if prefixes.iter().any(|p| line.starts_with(p)) => return line,
                Ok(_) => {}
                Err(err) => panic!("no line starting with one of {prefixes:?}: {err}"),
            }
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_watcher_names_each_rebuild() {
    let env = TestEnv::new();
    build(&env, &fixtures::keyword_context());
    env.untrusted_project_config(PROJECT);
    let watcher = Watcher::start(&env, &["build/guard.wasm"]);
    let second = build(&env, &fixtures::pattern_guard());
    let line = watcher.wait_for("rebuilt: ");
    drop(watcher);
    assert!(line.contains(&format!("sha256 {second}")), "{line}");
    assert!(line.contains("accepted"), "{line}");
    // The entry stays until --stop: the rebuilt guard, which the watcher accepted, is what runs.
    assert_eq!(run_code(&env).0, Some(3));
}

#[test]
fn managed_policy_limiting_sources_refuses_a_dev_build() {
    let env = TestEnv::new();
    build(&env, &fixtures::keyword_context());
    env.untrusted_project_config(PROJECT);
    env.managed_config("[policy]\nallowed_sources = [\"builtin:*\"]\n");
    let out = env.run(&["plugin", "dev", "build/guard.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("managed policy"), "{err}");
    assert!(err.contains("a local dev build is not loaded"), "{err}");
    assert!(!env.state_home().join("plugin-dev").exists());
    assert_eq!(run_code(&env).0, Some(2));
}

/// A managed file that requires signatures, its trusted key made by `plugin keygen`.
fn require_signed(env: &TestEnv) -> std::path::PathBuf {
    let keys = env.root().join("keys");
    let out = env.run(&["plugin", "keygen", &keys.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    env.managed_config(&format!(
        "[policy]\nrequire_signed = true\ntrusted_keys = [{:?}]\n",
        keys.join("warden-signing.pub").display().to_string()
    ))
}

/// Each managed policy that a local build cannot meet refuses `plugin dev`, naming the policy
/// key and the managed file, with nothing written.
#[test]
fn managed_policy_requiring_signatures_or_managed_plugins_refuses_a_dev_build() {
    for (key, policy) in [
        ("policy.require_signed", None),
        (
            "policy.managed_plugins_only",
            Some("managed_plugins_only = true"),
        ),
        (
            "policy.allowed_sources",
            Some("allowed_sources = [\"builtin:*\"]"),
        ),
    ] {
        let env = TestEnv::new();
        build(&env, &fixtures::keyword_context());
        env.untrusted_project_config(PROJECT);
        let managed = match policy {
            None => require_signed(&env),
            Some(line) => env.managed_config(&format!("[policy]\n{line}\n")),
        };
        let out = env.run(&["plugin", "dev", "build/guard.wasm", "--once"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{key}: {err}");
        assert!(err.contains(key), "{key}: {err}");
        assert!(err.contains(&managed.display().to_string()), "{key}: {err}");
        assert!(err.contains("a local dev build is not loaded"), "{err}");
        assert!(!env.state_home().join("plugin-dev").exists(), "{key}");
    }
}

/// An overlay written before the policy was set: the loader refuses its entry as it refuses
/// any plugin the policy does not allow, naming it as a dev build.
#[test]
fn a_dev_build_from_before_a_policy_is_not_loaded_under_it() {
    // pattern-guard as the dev build: when it loads, the prompt is cancelled (exit 3).
    let setup = || {
        let env = TestEnv::new();
        build(&env, &fixtures::pattern_guard());
        env.untrusted_project_config(PROJECT);
        let out = env.run(&["plugin", "dev", "build/guard.wasm", "--once"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(run_code(&env).0, Some(3));
        env
    };

    // Signatures required: the unsigned build is refused, the run does not start.
    let env = setup();
    let managed = require_signed(&env);
    let (code, err) = run_code(&env);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("guard"), "{err}");
    assert!(err.contains("policy.require_signed"), "{err}");
    assert!(err.contains(&managed.display().to_string()), "{err}");

    // Sources limited: refused likewise.
    let env = setup();
    env.managed_config("[policy]\nallowed_sources = [\"builtin:*\"]\n");
    let (code, err) = run_code(&env);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("guard"), "{err}");
    assert!(err.contains("allowed_sources"), "{err}");

    // Managed plugins only: left out with a warning naming the dev build, the run goes on
    // without it (the guard would have cancelled).
    let env = setup();
    env.managed_config("[policy]\nmanaged_plugins_only = true\n");
    let (code, err) = run_code(&env);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("plugin `guard` (a dev build of `warden plugin dev`"),
        "{err}"
    );
    assert!(err.contains("managed plugins only"), "{err}");
}

/// A tool plugin loaded by `plugin dev` with no project entry has no file system unless
/// `--fs` grants it: the run says so in the tool's error, `plugin dev` says how to grant it,
/// and with `--fs read` the same call reads the workspace (the deny globs still hold).
#[test]
fn a_dev_tool_reads_the_workspace_only_with_the_fs_grant_it_is_given() {
    let env = TestEnv::new();
    env.write("notes.txt", "a needle here\n");
    env.write(".env", "needle=secret\n");
    env.user_config(crate::tool_plugins::MODEL);
    let bytes = std::fs::read(fixtures::grep_tool()).unwrap();
    let path = env.workspace().join("build/tool.wasm");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let search = [(
        "call_1",
        "search_text",
        serde_json::json!({"pattern": "needle", "literal": true}),
    )];

    let out = env.run(&["plugin", "dev", "build/tool.wasm", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("  grants: none; a tool that reads the workspace needs `--fs read`"),
        "{text}"
    );
    let (code, err, tools, _server, _) = crate::tool_plugins::turn_with_calls(&env, &search, &[]);
    assert_eq!(code, Some(0), "{err}");
    let result = crate::tool_plugins::content(&tools, "call_1");
    assert!(result.contains("has no file system access"), "{result}");

    let out = env.run(&["plugin", "dev", "build/tool.wasm", "--fs", "read", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("  grants: fs = \"read\""),
        "{}",
        stdout(&out)
    );
    let (code, err, tools, _server, _) = crate::tool_plugins::turn_with_calls(&env, &search, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        crate::tool_plugins::content(&tools, "call_1"),
        "notes.txt:1: a needle here"
    );

    // A grant is a tool plugin's: an interceptor's dev build refuses it, with nothing written.
    build(&env, &fixtures::keyword_context());
    let out = env.run(&[
        "plugin",
        "dev",
        "build/guard.wasm",
        "--fs",
        "read",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("--fs is a tool plugin's grant; build/guard.wasm is an interceptor"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["plugin", "dev", "--stop", "--name", "guard"]);
    assert!(
        !stdout(&out).contains("no longer loaded"),
        "{}",
        stdout(&out)
    );
}

/// `--fs` above managed policy's ceiling for tool grants is refused by `plugin dev` itself,
/// naming the ceiling, with nothing written: the next run is not the first to find out.
#[test]
fn a_dev_tool_grant_above_the_managed_ceiling_is_refused_with_nothing_written() {
    let env = TestEnv::new();
    let path = env.workspace().join("build/tool.wasm");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, std::fs::read(fixtures::grep_tool()).unwrap()).unwrap();
    env.managed_config("[policy]\nmax_tool_grants = { fs = \"read\" }\n");

    let out = env.run(&[
        "plugin",
        "dev",
        "build/tool.wasm",
        "--fs",
        "read-write",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("above the ceiling `policy.max_tool_grants.fs = \"read\"`"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    let out = env.run(&["plugin", "dev", "--stop"]);
    assert!(
        stdout(&out).contains("dev: nothing to stop"),
        "{}",
        stdout(&out)
    );
    let out = env.run(&["run", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Within the ceiling it loads.
    let out = env.run(&["plugin", "dev", "build/tool.wasm", "--fs", "read", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
