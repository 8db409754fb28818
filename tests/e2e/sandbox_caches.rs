//! Build tools inside the `shell` sandbox, through the real binary: cargo builds and tests a
//! real crate with the user's cargo home left untouched (its writes go to a private cache
//! for the workspace), a failing test gets no sandbox note, and the note after a failed
//! command names only refusals the command's output points at, never an escalation the
//! policy refuses.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::shell::{OPENAI, run_calls, sandbox_missing};
use crate::support::TestEnv;

/// Why this test cannot run here: no sandbox, or no rustup toolchain to run cargo with.
fn missing() -> Option<String> {
    if let Some(missing) = sandbox_missing() {
        return Some(format!("the sandbox cannot be built here: {missing}"));
    }
    if rustup_home().is_none() {
        return Some("no rustup home (RUSTUP_HOME or ~/.rustup) to run cargo with".into());
    }
    None
}

macro_rules! require {
    ($name:expr) => {
        if let Some(missing) = missing() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{}: {missing}",
                $name
            );
            eprintln!("SKIP {}: {missing}", $name);
            return;
        }
    };
}

fn rustup_home() -> Option<PathBuf> {
    std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".rustup")))
        .filter(|p| p.join("toolchains").is_dir())
}

/// Every path under `dir`, with its size (files) — what a write would change.
fn listing(dir: &Path) -> BTreeSet<(PathBuf, u64)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
            }
            out.insert((path, if meta.is_file() { meta.len() } else { 0 }));
        }
    }
    out
}

/// A workspace holding crate `demo` (no dependencies) whose one test fails, and a shared cargo
/// home beside it standing for the user's; the environment `run` needs to run cargo.
fn cargo_workspace(env: &TestEnv) -> (PathBuf, Vec<(String, String)>) {
    env.project_config(OPENAI);
    env.user_config(
        "[tools.shell]\nenv = [\"CARGO_HOME\", \"RUSTUP_HOME\", \"RUSTUP_TOOLCHAIN\"]\ntimeout_s = 600\n",
    );
    env.write(
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    env.write(
        "src/lib.rs",
        "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n\n#[test]\nfn adds() {\n    assert_eq!(add(1, 1), 3, \"arithmetic is off\");\n}\n",
    );
    let shared = env.root_path().join("shared-cargo");
    std::fs::create_dir_all(shared.join("registry/index")).unwrap();
    std::fs::create_dir_all(shared.join("registry/cache")).unwrap();
    std::fs::write(
        shared.join("registry/CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    )
    .unwrap();
    let mut vars = vec![
        ("CARGO_HOME".to_owned(), shared.display().to_string()),
        (
            "RUSTUP_HOME".to_owned(),
            rustup_home().unwrap_or_default().display().to_string(),
        ),
    ];
    if let Ok(toolchain) = std::env::var("RUSTUP_TOOLCHAIN") {
        vars.push(("RUSTUP_TOOLCHAIN".to_owned(), toolchain));
    }
    (shared, vars)
}

#[test]
fn a_failing_cargo_test_gets_no_sandbox_note_and_the_shared_cache_stays_as_it_was() {
    require!("a_failing_cargo_test_gets_no_sandbox_note_and_the_shared_cache_stays_as_it_was");
    let env = TestEnv::new();
    let (shared, vars) = cargo_workspace(&env);
    let before = listing(&shared);
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (messages, _) = run_calls(
        &env,
        &[(
            "c1",
            json!({"command": "cargo test 2>&1", "timeout_s": 600}),
        )],
        &vars,
    );
    let text = &messages[0];
    assert!(text.contains("arithmetic is off"), "the test ran: {text}");
    assert!(text.contains("exit status: 101"), "{text}");
    assert!(!text.contains("[sandbox:"), "a false sandbox note: {text}");
    assert_eq!(
        listing(&shared),
        before,
        "the shared cargo home was written"
    );
}

#[test]
fn cargo_writes_to_a_private_cache_of_the_workspace() {
    require!("cargo_writes_to_a_private_cache_of_the_workspace");
    let env = TestEnv::new();
    let (shared, vars) = cargo_workspace(&env);
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (messages, _) = run_calls(
        &env,
        &[(
            "c1",
            json!({"command": "cargo build 2>&1 && echo \"home=$CARGO_HOME\" && ls -a \"$CARGO_HOME\"", "timeout_s": 600}),
        )],
        &vars,
    );
    let text = &messages[0];
    assert!(text.contains("exit status: 0"), "{text}");
    let home = text
        .lines()
        .find_map(|l| l.strip_prefix("home="))
        .unwrap_or_else(|| panic!("no CARGO_HOME in {text}"));
    assert_ne!(Path::new(home), shared, "{text}");
    assert!(
        !home.starts_with(&*env.workspace().to_string_lossy()),
        "{home}"
    );
    assert!(
        text.contains(".package-cache"),
        "cargo's lock went to its own home: {text}"
    );
    // The same workspace gets the same cache next time; another workspace gets another.
    let (again, _) = run_calls(
        &env,
        &[("c1", json!({"command": "echo \"home=$CARGO_HOME\""}))],
        &vars,
    );
    assert!(again[0].contains(&format!("home={home}\n")), "{}", again[0]);
    let other = TestEnv::new();
    other.project_config(OPENAI);
    other.user_config("[tools.shell]\nenv = [\"CARGO_HOME\"]\n");
    let (elsewhere, _) = run_calls(
        &other,
        &[("c1", json!({"command": "echo \"home=$CARGO_HOME\""}))],
        &vars,
    );
    assert!(
        !elsewhere[0].contains(&format!("home={home}\n")),
        "{}",
        elsewhere[0]
    );
}

#[test]
fn the_note_names_a_refusal_only_when_the_output_points_at_it() {
    require!("the_note_names_a_refusal_only_when_the_output_points_at_it");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let (messages, _) = run_calls(
        &env,
        &[
            // The refused write is what failed: the shell names the path.
            ("c1", json!({"command": "echo x > \"$HOME/refused.txt\""})),
            // A refused write the command shrugged off, then an unrelated failure.
            (
                "c2",
                json!({"command": "touch \"$HOME/quiet.txt\" 2>/dev/null; echo 'assertion failed: left == right'; exit 1"}),
            ),
        ],
        &[],
    );
    let (named, unrelated) = (&messages[0], &messages[1]);
    assert!(named.contains("[sandbox:"), "{named}");
    assert!(named.contains("refused.txt"), "{named}");
    // The default policy refuses `unsandboxed`: the note does not offer it.
    assert!(!named.contains("\"unsandboxed\""), "{named}");
    assert!(unrelated.contains("assertion failed"), "{unrelated}");
    assert!(!unrelated.contains("[sandbox:"), "{unrelated}");
}
