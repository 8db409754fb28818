//! The edit-build-run loop of `warden plugin dev`: the build it accepts is compiled once, into
//! the compiled-code cache the next run reads (a large Python or JavaScript component is not
//! compiled a second time), and a script project's `plugin.wasm` is named after its project.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

/// Every compiled-code cache entry of the component with digest `sha`: (file, modified).
fn compiled(env: &TestEnv, sha: &str) -> Vec<(PathBuf, SystemTime)> {
    let root = env.state_home().join("cache/compiled");
    let Ok(dirs) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    dirs.flatten()
        .map(|d| d.path().join(format!("{sha}.cwasm")))
        .filter(|f| f.is_file())
        .map(|f| {
            let modified = std::fs::metadata(&f).unwrap().modified().unwrap();
            (f, modified)
        })
        .collect()
}

#[test]
fn the_accepted_build_is_compiled_once_for_dev_and_the_next_run() {
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    let file = env.workspace().join("build/kw.wasm");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::copy(fixtures::keyword_context(), &file).unwrap();
    let sha = warden::plugin::sha256_hex(&std::fs::read(&file).unwrap());
    assert!(compiled(&env, &sha).is_empty());

    let out = env.run(&[
        "plugin",
        "dev",
        "build/kw.wasm",
        "--once",
        "--config",
        "word=deploy",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after_dev = compiled(&env, &sha);
    assert_eq!(after_dev.len(), 1, "{after_dev:?}");

    // The run finds it: the same entry, not rewritten, and no other one.
    let out = env.run(&["run", "--json", "how do I deploy?"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(1 user, 1 system)"),
        "{}",
        stdout(&out)
    );
    assert_eq!(compiled(&env, &sha), after_dev);
}

/// A script project: `plugin.wasm` in a directory holding its manifest.
fn script_project(env: &TestEnv, dir: &str, manifest: Option<(&str, &str)>) -> PathBuf {
    let root = env.workspace().join(dir);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::copy(fixtures::keyword_context(), root.join("plugin.wasm")).unwrap();
    if let Some((file, text)) = manifest {
        std::fs::write(root.join(file), text).unwrap();
    }
    root
}

fn dev_name(env: &TestEnv, path: &Path) -> String {
    let out = env.run(&[
        "plugin",
        "dev",
        &path.to_string_lossy(),
        "--once",
        "--config",
        "word=x",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    text.strip_prefix("dev: ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{text}"))
        .to_owned()
}

#[test]
fn a_script_build_is_named_after_its_project() {
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"echo\"\n");
    let js = script_project(
        &env,
        "js-guard",
        Some((
            "package.json",
            "{\"name\": \"@acme/deploy-guard\", \"version\": \"1.0.0\"}",
        )),
    );
    assert_eq!(dev_name(&env, &js), "deploy-guard");
    let py = script_project(
        &env,
        "py-guard",
        Some((
            "pyproject.toml",
            "[project]\nname = \"deploy_words\"\nversion = \"0.1.0\"\n",
        )),
    );
    // The directory or its plugin.wasm: the same name.
    assert_eq!(dev_name(&env, &py.join("plugin.wasm")), "deploy_words");
    assert_eq!(dev_name(&env, &py), "deploy_words");
    // No manifest: the project directory's name, never `plugin`.
    let bare = script_project(&env, "bare-guard", None);
    assert_eq!(dev_name(&env, &bare.join("plugin.wasm")), "bare-guard");
}
