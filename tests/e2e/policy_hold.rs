//! Managed policy that holds: no project, user or race can loosen what the operator locked.
//! Each test is one case of docs/security.md; docs/policy.md links to them.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use warden_tests::fixtures;

use crate::support::{TestEnv, output_within, stderr, stdout};

const SECRET_ENV: &str = "TOKEN=leak-env-1";
const SECRET_PLAN: &str = "secret plan 42";

/// A workspace with `.env`, a file the managed layer denies, and an ordinary file.
fn secrets() -> TestEnv {
    let env = TestEnv::new();
    env.write(".env", format!("{SECRET_ENV}\n"));
    env.write("corp/plan.txt", format!("{SECRET_PLAN}\n"));
    env.write("ok.txt", "fine\n");
    env
}

fn preview_json(env: &TestEnv, prompt: &str) -> (Output, serde_json::Value) {
    let out = env.run(&["preview", "--json", prompt]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value = serde_json::from_str(&stdout(&out)).unwrap();
    (out, value)
}

fn statuses(value: &serde_json::Value) -> Vec<String> {
    value["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn assert_no_secret(out: &Output) {
    let all = format!("{}{}", stdout(out), stderr(out));
    assert!(
        !all.contains(SECRET_ENV) && !all.contains(SECRET_PLAN),
        "a denied file left the machine:\n{all}"
    );
}

// ---- 1. The resolver cannot escape the managed deny list -------------------------------------

#[test]
fn managed_plugins_only_keeps_a_project_resolver_out() {
    let env = secrets();
    let leaky = fixtures::leaky_resolver();
    env.project_config(&format!("[fileref]\nresolver = \"{}\"\n", leaky.display()));
    env.managed_config("[policy]\nmanaged_plugins_only = true\n[fileref]\ndeny = [\"corp/**\"]\n");
    let (out, value) = preview_json(&env, "@.env @corp/plan.txt @ok.txt");
    assert_no_secret(&out);
    assert_eq!(statuses(&value), ["denied", "denied", "resolved"]);
    let err = stderr(&out);
    assert!(
        err.contains("fileref.resolver") && err.contains("managed plugins only"),
        "{err}"
    );
}

#[test]
fn the_host_refuses_denied_paths_from_a_pinned_project_resolver() {
    let env = secrets();
    let leaky = fixtures::leaky_resolver();
    let pin = warden::plugin::sha256_hex(&std::fs::read(&leaky).unwrap());
    env.project_config(&format!(
        "[fileref]\nresolver = \"{}\"\nresolver_sha256 = \"{pin}\"\n",
        leaky.display()
    ));
    env.managed_config("[policy]\nrequire_sha256 = true\n[fileref]\ndeny = [\"corp/**\"]\n");
    let (out, value) = preview_json(&env, "@.env @corp/plan.txt @ok.txt @corp");
    assert_no_secret(&out);
    assert_eq!(
        statuses(&value),
        ["denied", "denied", "resolved", "denied"],
        "{value}"
    );
}

#[test]
fn the_host_refuses_denied_file_tool_results_from_a_pinned_project_resolver() {
    use serde_json::json;
    use warden_tests::mock_server::{MockServer, Reply};
    let env = secrets();
    let leaky = fixtures::leaky_resolver();
    let pin = warden::plugin::sha256_hex(&std::fs::read(&leaky).unwrap());
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n[fileref]\nresolver = \"{}\"\nresolver_sha256 = \"{pin}\"\n",
        leaky.display()
    ));
    env.managed_config("[policy]\nrequire_sha256 = true\n[fileref]\ndeny = [\"corp/**\"]\n");
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "Let me look.",
        &[
            ("c1", "read_file", json!({"path": ".env"})),
            ("c2", "read_file", json!({"path": "corp/plan.txt"})),
            ("c3", "list_files", json!({"path": "."})),
        ],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "look around"]);
    let out = output_within(cmd, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1].body["messages"].to_string();
    assert!(
        !sent.contains("leak-env") && !sent.contains("secret plan"),
        "a denied file reached the model: {sent}"
    );
    let tools: Vec<String> = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(tools.len(), 3, "{sent}");
    assert!(
        tools[0].contains("denied") && tools[1].contains("denied"),
        "{tools:?}"
    );
    assert!(tools[2].contains("ok.txt"), "{tools:?}");
    assert!(
        !tools[2].contains(".env") && !tools[2].contains("corp"),
        "{tools:?}"
    );
}

// ---- 2. Locks ---------------------------------------------------------------------------------

fn keyword_plugin() -> String {
    format!(
        "[[plugins]]\nname = \"kw\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\nword = \"x\"\n",
        fixtures::keyword_context().display()
    )
}

#[test]
fn locking_plugins_keeps_project_plugins_out() {
    let env = TestEnv::new();
    env.project_config(&keyword_plugin());
    env.managed_config("[policy]\nlocked = [\"plugins\"]\n");
    let out = env.run(&["run", "x marks the spot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`plugins` is locked by managed policy"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("1 item (1 user)"),
        "the project plugin ran: {}",
        stdout(&out)
    );
}

#[test]
fn locking_a_table_locks_every_key_under_it() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.project_config(
        "[model]\nprovider = \"openai\"\n[fileref]\nplacement = \"reminder\"\ndeny = [\"a.txt\"]\n",
    );
    env.managed_config("[policy]\nlocked = [\"model\", \"fileref\"]\n");
    let out = env.run(&["run", "read @a.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("`model` is locked"), "{err}");
    assert!(err.contains("`fileref` is locked"), "{err}");
    assert!(
        stdout(&out).starts_with("[echo provider]"),
        "{}",
        stdout(&out)
    );
    let (_, value) = preview_json(&env, "read @a.txt");
    assert_eq!(statuses(&value), ["resolved"]);
    let file_item = value["items"][1]["text"].as_str().unwrap();
    assert!(file_item.starts_with("[File: a.txt]"), "{file_item}");
}

#[test]
fn a_lock_naming_no_key_is_an_error_of_the_managed_file() {
    let env = TestEnv::new();
    let managed = env
        .managed_config("[policy]\nlocked = [\n  \"model.provider\",\n  \"model.provder\",\n]\n");
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}:4", managed.display())) && err.contains("model.provder"),
        "{err}"
    );
}

// ---- 3. The managed file cannot be replaced or lost -------------------------------------------

#[test]
fn the_user_cannot_replace_the_system_managed_file() {
    let env = secrets();
    std::fs::write(
        env.system_managed_path(),
        "[fileref]\ndeny = [\"corp/**\"]\n",
    )
    .unwrap();
    let permissive = env.managed_config("[policy]\n");
    for replacement in [Path::new("/dev/null"), permissive.as_path()] {
        let mut cmd = env.command();
        cmd.env("WARDEN_MANAGED_CONFIG", replacement)
            .args(["preview", "--json", "@corp/plan.txt"]);
        let out = output_within(cmd, Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_no_secret(&out);
        let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(statuses(&value), ["denied"], "{}", replacement.display());
        assert!(
            stderr(&out).contains("WARDEN_MANAGED_CONFIG is ignored"),
            "{}",
            stderr(&out)
        );
    }
}

/// Puts something unusable at a managed path.
type MakeBroken = fn(&Path);

#[test]
fn managed_paths_that_cannot_be_read_fail_closed() {
    let env = TestEnv::new();
    let cases: [(&str, MakeBroken); 3] = [
        ("dangling symlink", |p| {
            symlink("/nonexistent/managed.toml", p).unwrap()
        }),
        ("directory", |p| std::fs::create_dir(p).unwrap()),
        ("bad TOML", |p| std::fs::write(p, "[policy\n").unwrap()),
    ];
    for (what, make) in cases {
        for path in [env.system_managed_path(), env.managed_path()] {
            make(&path);
            let out = env.run(&["preview", "hi"]);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{what} at {}: {}",
                path.display(),
                stderr(&out)
            );
            assert!(
                stderr(&out).contains(&path.display().to_string()),
                "{what}: {}",
                stderr(&out)
            );
            if path.is_dir() {
                std::fs::remove_dir(&path).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
        }
    }
}

/// Tests run as root, who can read any file: the unreadable case runs warden as `nobody`.
#[test]
fn an_unreadable_managed_file_fails_closed() {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::process::CommandExt;
    let env = TestEnv::new();
    let managed = env.managed_config("[fileref]\ndeny = [\"corp/**\"]\n");
    std::fs::set_permissions(&managed, std::fs::Permissions::from_mode(0o600)).unwrap();
    let as_root = std::fs::metadata(&managed).unwrap().uid() == 0;
    let mut cmd = env.command();
    if as_root {
        // `nobody` must reach the workspace and the binary, but not the managed file.
        std::fs::set_permissions(env.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
        cmd.uid(65534).gid(65534);
    } else {
        std::fs::set_permissions(&managed, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    cmd.args(["preview", "hi"]);
    let out = output_within(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&managed.display().to_string()) && err.contains("ermission denied"),
        "{err}"
    );
}

// ---- 4. The deny list cannot be raced --------------------------------------------------------

/// `d` is swapped, in a tight rename loop, between a real directory holding `config` and a
/// symbolic link to `.git`, while previews resolve `@d/config#L1` thousands of times.
#[test]
fn the_deny_list_holds_against_a_directory_swapped_for_a_symlink() {
    const SECRET_GIT: &str = "SECRET-GIT-CONFIG";
    const TRIES: usize = 4000;
    const REFS_PER_PREVIEW: usize = 250;
    let env = TestEnv::new();
    env.write(".git/config", format!("{SECRET_GIT}\n"));
    env.write("d/config", "harmless\n");
    env.project_config("[fileref]\ndedup = false\nmax_total_bytes = 1000000\n");
    let ws = env.workspace();
    symlink(".git", ws.join("d.link")).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        let ws = ws.clone();
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let steps = [
                    ("d", "d.real"),
                    ("d.link", "d"),
                    ("d", "d.link"),
                    ("d.real", "d"),
                ];
                for (from, to) in steps {
                    std::fs::rename(ws.join(from), ws.join(to)).unwrap();
                }
                swaps += 1;
            }
            swaps
        })
    };

    let prompt = vec!["@d/config#L1"; REFS_PER_PREVIEW].join(" ");
    let started = Instant::now();
    let (mut tries, mut leaks, mut resolved) = (0, 0, 0);
    while tries < TRIES && started.elapsed() < Duration::from_secs(120) {
        let out = env.run(&["preview", "--json", &prompt]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        leaks += text.matches(SECRET_GIT).count();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        resolved += statuses(&value).iter().filter(|s| *s == "resolved").count();
        tries += REFS_PER_PREVIEW;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert_eq!(leaks, 0, "{leaks} of {tries} references read .git/config");
    assert!(tries >= 1000, "only {tries} tries in the time allowed");
    assert!(swaps > 100, "the swap loop ran only {swaps} times");
    assert!(
        resolved > 0,
        "no reference ever resolved: the race was never run"
    );
}

// ---- 5. Component paths that are not regular files -------------------------------------------

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

fn run_briefly(env: &TestEnv, args: &[&str]) -> Output {
    let mut cmd = env.command();
    cmd.args(args);
    output_within(cmd, Duration::from_secs(30))
}

#[test]
fn a_fifo_as_plugin_or_resolver_is_refused_without_hanging() {
    let env = TestEnv::new();
    let fifo = env.root().join("plugin.wasm");
    mkfifo(&fifo);
    let entry = format!(
        "[[plugins]]\nname = \"p\"\nkind = \"hook\"\npath = \"{}\"\n",
        fifo.display()
    );
    // `warden trust` refuses it without opening it (trust records content it could not read
    // as nothing), and the loader refuses it in a layer that needs no trust.
    env.untrusted_project_config(&entry);
    let out = env.trust();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(env.workspace().join(".warden/config.toml")).unwrap();
    env.user_config(&entry);
    let out = run_briefly(&env, &["run", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );

    env.user_config(&format!("[fileref]\nresolver = \"{}\"\n", fifo.display()));
    let out = run_briefly(&env, &["preview", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_device_as_plugin_is_refused_without_reading_it() {
    let env = TestEnv::new();
    let entry = "[[plugins]]\nname = \"z\"\nkind = \"hook\"\npath = \"/dev/zero\"\n";
    env.untrusted_project_config(entry);
    let out = env.trust();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(env.workspace().join(".warden/config.toml")).unwrap();
    env.user_config(entry);
    let out = run_briefly(&env, &["run", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_component_over_the_managed_size_cap_is_refused() {
    let env = TestEnv::new();
    let big = env.root().join("big.wasm");
    std::fs::write(&big, vec![0u8; 2 << 20]).unwrap();
    env.project_config(&format!(
        "[[plugins]]\nname = \"big\"\nkind = \"hook\"\npath = \"{}\"\n",
        big.display()
    ));
    env.managed_config("[policy]\nmax_component_mb = 1\n");
    let out = run_briefly(&env, &["run", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("larger than the 1 MiB maximum"),
        "{}",
        stderr(&out)
    );
}
