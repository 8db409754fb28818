//! Every world in every language on the newest WIT: the projects `warden plugin new --lang L
//! --world W` writes (Rust, Python, JavaScript), their native tests, and the same scripted
//! session through `warden run` against the Rust, Python and JavaScript build of each world,
//! whose committed items (`session export`) and plugin logs must be equal.
//!
//! Each project is built once per source: the build lands under `target/plugin-langs/`, keyed by
//! a hash of the files `plugin new` writes, and later runs reuse it. A missing toolchain prints a
//! SKIP line (a failure under `CI=true`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use warden_tests::mock_server::{MockServer, Reply};

use crate::plugin_langs::{componentize_js, has_componentize_py, skip};
use crate::support::{TestEnv, output_within, plugin_entry, stderr, stdout};
use crate::tool_plugins::{MODEL, tool_entry};

const LANGS: &[&str] = &["rust", "python", "js"];

/// Deadlines for a loaded machine: a Python `init` can take over the default 100 ms there.
pub(crate) const LOADED: &str = "timeout_ms = 10000";

/// A run that compiles an 18 MB component first: minutes of CPU on a loaded machine, not a hang.
const FIRST_START_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

fn repo() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).unwrap()
}

/// Where built projects are kept between runs.
fn cache_root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("plugin-langs")
}

/// Every file under `dir` (relative, sorted) that a build reads: not build output, not the
/// README.
fn files_of(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if matches!(
                name.as_str(),
                "target" | "node_modules" | "plugin.wasm" | "deps" | "README.md" | ".gitignore"
            ) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// A short hash of the project's files (names and contents).
fn source_hash(dir: &Path) -> String {
    let mut hash = Sha256::new();
    for rel in files_of(dir) {
        hash.update(rel.to_string_lossy().as_bytes());
        hash.update([0]);
        hash.update(std::fs::read(dir.join(&rel)).unwrap());
        hash.update([0]);
    }
    hex::encode(&hash.finalize()[..8])
}

/// The build command of a project of `lang`, or `None` (after a SKIP line) without its tool.
fn build_command(lang: &str, world: &str, project: &Path) -> Option<Command> {
    match lang {
        "python" => {
            if !has_componentize_py() {
                skip(
                    &format!("plugin new --lang python --world {world}"),
                    "componentize-py",
                );
                return None;
            }
            let mut cmd = Command::new("bash");
            cmd.arg(project.join("build.sh"));
            Some(cmd)
        }
        "js" => {
            let Some(cjs) = componentize_js() else {
                skip(
                    &format!("plugin new --lang js --world {world}"),
                    "componentize-js",
                );
                return None;
            };
            let mut cmd = Command::new("bash");
            cmd.arg(project.join("build.sh"))
                .env("COMPONENTIZE_JS", cjs);
            Some(cmd)
        }
        _ => {
            // Offline, with the lock file of the guest workspace (the crates are in the cache).
            std::fs::copy(
                repo().join("plugins/Cargo.lock"),
                project.join("Cargo.lock"),
            )
            .unwrap();
            let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
            cmd.current_dir(project)
                .args([
                    "build",
                    "--release",
                    "--offline",
                    "--quiet",
                    "--target",
                    "wasm32-wasip2",
                ])
                .arg("--target-dir")
                .arg(cache_root().join("rust-target"));
            for (key, _) in std::env::vars_os() {
                let Some(key) = key.to_str() else { continue };
                if key == "RUSTFLAGS"
                    || key == "CARGO_ENCODED_RUSTFLAGS"
                    || key == "CARGO_TARGET_DIR"
                    || key.starts_with("CARGO_BUILD_")
                {
                    cmd.env_remove(key);
                }
            }
            Some(cmd)
        }
    }
}

type Built = Vec<((String, String), Option<PathBuf>)>;

/// The component of the project `plugin new --lang LANG --world WORLD` writes, built once per
/// source (`None` after a SKIP line when the toolchain is missing).
fn built(lang: &str, world: &str) -> Option<PathBuf> {
    static BUILT: OnceLock<Mutex<Built>> = OnceLock::new();
    let mut cache = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let key = (lang.to_owned(), world.to_owned());
    if let Some((_, path)) = cache.iter().find(|(k, _)| *k == key) {
        return path.clone();
    }
    let path = build_project(lang, world, "", |_| {});
    cache.push((key, path.clone()));
    path
}

/// Writes the project, `edit`s it, and builds it unless a build of the same files exists (in
/// `target/plugin-langs/{lang}-{world}{label}-{hash}`); older builds of the same key go.
fn build_project(
    lang: &str,
    world: &str,
    label: &str,
    edit: impl FnOnce(&Path),
) -> Option<PathBuf> {
    let env = TestEnv::new();
    let root = cache_root();
    std::fs::create_dir_all(&root).unwrap();
    let staging = tempfile::tempdir_in(&root).unwrap();
    // The same name every time: a Rust project's crate name is part of its source.
    let name = format!("my-{world}");
    let out = env.run_in(
        staging.path(),
        &["plugin", "new", &name, "--lang", lang, "--world", world],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = staging.path().join(&name);
    edit(&written);
    let key = format!("{lang}-{world}{label}-");
    let hash = source_hash(&written);
    let dir = root.join(format!("{key}{hash}"));
    let wasm = dir.join(&name).join("plugin.wasm");
    let project = dir.join(&name);
    // A Rust project depends on the SDK by path, outside the hash: cargo decides what to rebuild.
    if wasm.is_file() && lang != "rust" {
        return Some(wasm);
    }
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let other = entry.file_name().to_string_lossy().into_owned();
        let stale = other.strip_prefix(&key).is_some_and(|rest| {
            rest != hash && rest.len() == hash.len() && rest.bytes().all(|b| b.is_ascii_hexdigit())
        });
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    if !project.is_dir() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::rename(&written, &project).unwrap();
    }
    let mut cmd = build_command(lang, world, &project)?;
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "building {} failed:\n{}{}",
        project.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if lang == "rust" {
        let file = name.replace('-', "_");
        let output = cache_root()
            .join("rust-target")
            .join(format!("wasm32-wasip2/release/{file}.wasm"));
        std::fs::copy(output, &wasm).unwrap();
    }
    assert!(wasm.is_file(), "{} wrote no plugin.wasm", project.display());
    Some(wasm)
}

/// One `warden run --json PROMPT` with the model answering `replies` in turn: the exit code,
/// the committed items (`session export`) and stderr.
pub(crate) fn session(
    env: &TestEnv,
    prompt: &str,
    replies: Vec<Reply>,
    log: &str,
) -> (Option<i32>, Value, String) {
    let server = MockServer::start().unwrap();
    for reply in replies {
        server.push(reply);
    }
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .env("WARDEN_LOG", log)
        .args(["run", "--json", prompt]);
    let out = output_within(cmd, FIRST_START_LIMIT);
    let err = stderr(&out);
    let Ok(value) = serde_json::from_str::<Value>(stdout(&out).trim()) else {
        return (out.status.code(), Value::Null, err);
    };
    let id = value["session"].as_str().unwrap_or_default().to_owned();
    let export = env.run(&["session", "export", &id]);
    assert!(export.status.success(), "{}", stderr(&export));
    let items: Value = serde_json::from_slice(&export.stdout).unwrap();
    (out.status.code(), items, err)
}

/// The built components of `world` by language, in [`LANGS`] order; none when a toolchain is
/// missing (after its SKIP line).
fn components(world: &str) -> Option<Vec<(&'static str, PathBuf)>> {
    let mut out = Vec::new();
    for lang in LANGS {
        out.push((*lang, built(lang, world)?));
    }
    Some(out)
}

/// Runs `scenario` for every language in one environment (each component is compiled once into
/// its cache) and asserts that every language's result equals Rust's; returns Rust's.
fn same_in_every_language<T: PartialEq + std::fmt::Debug>(
    world: &str,
    scenario: impl Fn(&TestEnv, &Path) -> T,
) -> Option<T> {
    let built = components(world)?;
    let env = TestEnv::new();
    let mut results: Vec<(&str, T)> = Vec::new();
    for (lang, wasm) in &built {
        results.push((lang, scenario(&env, wasm)));
    }
    let (_, rust) = results.remove(0);
    for (lang, result) in results {
        assert_eq!(result, rust, "{world}: {lang} differs from rust");
    }
    Some(rust)
}

#[test]
fn interceptor_adds_its_context_in_every_language_alike() {
    let Some((with_word, without, refused)) = same_in_every_language("interceptor", |env, wasm| {
        let entry = |word: &str| {
            format!(
                "{MODEL}{}",
                plugin_entry(
                    "interceptor",
                    "kw",
                    wasm,
                    LOADED,
                    &[("word", word), ("context", "Deploys go through CI.")],
                )
            )
        };
        env.project_config(&entry("deploy"));
        let (code, with_word, err) =
            session(env, "how do I deploy?", vec![Reply::text("ok")], "warn");
        assert_eq!(code, Some(0), "{} {err}", wasm.display());
        let (code, without, err) = session(env, "hello", vec![Reply::text("ok")], "warn");
        assert_eq!(code, Some(0), "{} {err}", wasm.display());
        env.project_config(&entry(""));
        let out = env.run(&["preview", "hello"]);
        let refused = (
            out.status.code(),
            stderr(&out).contains("config key `word` must not be empty"),
        );
        (with_word, without, refused)
    }) else {
        return;
    };
    assert_eq!(
        with_word,
        json!([
            {"role": "user", "text": "how do I deploy?", "source": "user"},
            {"role": "system", "text": "Deploys go through CI.", "source": "plugin:kw"},
            {"role": "assistant", "text": "ok", "source": "provider"},
        ])
    );
    assert_eq!(without.as_array().map(Vec::len), Some(2), "{without}");
    assert_eq!(refused, (Some(2), true));
}

#[test]
fn hook_counts_the_same_events_in_every_language() {
    let Some((items, counts)) = same_in_every_language("hook", |env, wasm| {
        env.project_config(&format!(
            "{MODEL}{}",
            plugin_entry("hook", "counter", wasm, LOADED, &[])
        ));
        let (code, items, err) =
            session(env, "hello", vec![Reply::text("hi")], "warden::plugin=info");
        assert_eq!(code, Some(0), "{} {err}", wasm.display());
        let counts: Vec<String> = err
            .lines()
            .filter_map(|l| l.find("event counts: ").map(|at| l[at..].to_owned()))
            .collect();
        (items, counts)
    }) else {
        return;
    };
    assert_eq!(items.as_array().map(Vec::len), Some(2), "{items}");
    assert_eq!(counts.len(), 1, "{counts:?}");
    assert!(counts[0].contains("turn-ended=1"), "{counts:?}");
    assert!(counts[0].contains("prompt-submitted=1"), "{counts:?}");
}

#[test]
fn resolver_serves_refs_and_file_tools_in_every_language_alike() {
    let Some(items) = same_in_every_language("resolver", |env, wasm| {
        env.write("notes.txt", "one\ntwo\nthree\n");
        env.write("sub/a.txt", "alpha\n");
        env.project_config(&format!(
            "{MODEL}[fileref]\nresolver = {:?}\n",
            wasm.display().to_string()
        ));
        let (code, items, err) = session(
            env,
            "read @notes.txt",
            vec![
                Reply::tool_calls(
                    "Looking.",
                    &[
                        (
                            "r1",
                            "read_file",
                            json!({"path": "notes.txt", "offset": 2, "limit": 1}),
                        ),
                        ("r2", "list_files", json!({"path": "."})),
                        ("r3", "read_file", json!({"path": "../outside.txt"})),
                        ("r4", "read_file", json!({"path": "missing.txt"})),
                    ],
                ),
                Reply::text("done"),
            ],
            "warn",
        );
        assert_eq!(code, Some(0), "{} {err}", wasm.display());
        items
    }) else {
        return;
    };
    let text = items.to_string();
    for shown in [
        "one\\ntwo\\nthree",
        "two",
        "sub/",
        "outside the workspace",
        "missing.txt",
    ] {
        assert!(text.contains(shown), "{shown}: {text}");
    }
}

#[test]
fn tool_counts_lines_and_refuses_paths_in_every_language_alike() {
    let Some(items) = same_in_every_language("tool", |env, wasm| {
        env.write("notes.txt", "one\ntwo\nthree\n");
        env.write(".env", "KEY=1\n");
        for path in DENY_PATHS {
            env.write(path, "x\n");
        }
        env.project_config(&format!(
            "{MODEL}{}",
            plugin_entry(
                "tool",
                "counter",
                wasm,
                &format!("fs = \"read\"\n{LOADED}"),
                &[("deny", DENY_GLOBS)],
            )
        ));
        let mut calls = vec![
            ("c1".to_owned(), json!({"path": "./notes.txt"})),
            ("c2".to_owned(), json!({"path": "../x"})),
            ("c3".to_owned(), json!({"path": ".env"})),
            ("c4".to_owned(), json!({})),
        ];
        for (n, path) in DENY_PATHS.iter().enumerate() {
            calls.push((format!("d{n}"), json!({ "path": path })));
        }
        let calls: Vec<(&str, &str, Value)> = calls
            .iter()
            .map(|(id, args)| (id.as_str(), "count_lines", args.clone()))
            .collect();
        let (code, items, err) = session(
            env,
            "count",
            vec![Reply::tool_calls("Counting.", &calls), Reply::text("done")],
            "warn",
        );
        assert_eq!(code, Some(0), "{} {err}", wasm.display());
        items
    }) else {
        return;
    };
    let text = items.to_string();
    for shown in [
        "notes.txt: 3 lines",
        "`..` is refused",
        ".env: denied by the workspace's deny globs",
        "missing string argument `path`",
    ] {
        assert!(text.contains(shown), "{shown}: {text}");
    }
    // The deny globs as the Rust SDK reads them, in every language: a glob without `/` at any
    // depth, `*` within a name, `**` across directories.
    for (path, denied) in DENY_PATHS.iter().zip(DENIED) {
        let refusal = format!("{path}: denied by the workspace's deny globs");
        let counted = format!("{path}: 1 lines");
        assert!(
            text.contains(if denied { &refusal } else { &counted }),
            "{path} denied={denied}: {text}"
        );
    }
}

/// The `deny` config of the tool in the comparison above, and paths with whether they are
/// denied by it.
const DENY_GLOBS: &str = "**/secret*,src/**/*.pem,*.env";
const DENY_PATHS: [&str; 7] = [
    "secret.md",
    "deep/er/secret.md",
    "docs/secretary/x.txt",
    "src/a/b/key.pem",
    "src/a/key.txt",
    "conf/b.env",
    "a.env",
];
const DENIED: [bool; 7] = [true, true, false, true, false, true, true];

/// The native tests `plugin new` writes beside the logic pass as written: `python3 -m
/// unittest` and `node --test`, with no component built.
#[test]
fn every_python_and_js_template_passes_its_native_tests() {
    let env = TestEnv::new();
    let dir = tempfile::tempdir().unwrap();
    for lang in ["python", "js"] {
        for world in ["interceptor", "hook", "resolver", "tool"] {
            let name = format!("{lang}-{world}");
            let out = env.run_in(
                dir.path(),
                &["plugin", "new", &name, "--lang", lang, "--world", world],
            );
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            let (program, args): (&str, &[&str]) = if lang == "python" {
                ("python3", &["-m", "unittest", "-v"])
            } else {
                ("node", &["--test"])
            };
            let Ok(out) = Command::new(program)
                .args(args)
                .current_dir(dir.path().join(&name))
                .output()
            else {
                skip(&format!("{name}'s native tests"), program);
                continue;
            };
            let text = format!("{}{}", stdout(&out), stderr(&out));
            assert!(out.status.success(), "{name}: {text}");
            let ran = if lang == "python" {
                text.contains("Ran ") && !text.contains("Ran 0 tests")
            } else {
                text.contains("# pass ") && !text.contains("# pass 0")
            };
            assert!(ran, "{name}: no test ran\n{text}");
        }
    }
}

/// Inserts `line` before the line holding `marker` in `file`.
fn insert_before(file: &Path, marker: &str, line: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} not in {text}"));
    let at = text[..at].rfind('\n').map_or(0, |n| n + 1);
    std::fs::write(file, format!("{}{line}\n{}", &text[..at], &text[at..])).unwrap();
}

/// An uncaught exception in a tool's `call` is a failure of the plugin: the model's result and
/// stderr show its type and message, and for Python where it was raised.
#[test]
fn an_uncaught_exception_in_a_python_or_js_tool_shows_its_type_and_message() {
    let python = build_project("python", "tool", "-raises", |project| {
        insert_before(
            &project.join("app.py"),
            "if name != \"count_lines\":",
            "        if \"boom\" in arguments:\n            raise KeyError(\"x\")",
        );
    });
    let js = build_project("js", "tool", "-raises", |project| {
        insert_before(
            &project.join("app.js"),
            "if (name !== \"count_lines\")",
            "    if (argumentsJson.includes(\"boom\")) argumentsJson.missing.field = 1;",
        );
    });
    let env = TestEnv::new();
    env.write("notes.txt", "one\n");
    for (wasm, shows) in [
        (python, &["KeyError: 'x'", "app.py, line ", "in call"][..]),
        (
            js,
            &["TypeError: ", "argumentsJson.missing is undefined"][..],
        ),
    ] {
        let Some(wasm) = wasm else { continue };
        env.project_config(&format!(
            "{MODEL}{}",
            tool_entry("counter", &wasm, "fs = \"read\"")
        ));
        let (code, items, err) = session(
            &env,
            "count",
            vec![
                Reply::tool_calls(
                    "Counting.",
                    &[(
                        "c1",
                        "count_lines",
                        json!({"path": "notes.txt", "boom": true}),
                    )],
                ),
                Reply::text("done"),
            ],
            "warn",
        );
        assert_eq!(code, Some(0), "{err}");
        let result = items
            .as_array()
            .and_then(|items| items.iter().find(|i| i["role"] == "tool"))
            .map(|i| i.to_string())
            .unwrap_or_default();
        for shown in [result.as_str(), err.as_str()] {
            for part in shows {
                assert!(shown.contains(part), "{part}: {shown}");
            }
        }
    }
}
