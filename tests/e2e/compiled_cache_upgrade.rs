//! The compiled-code cache across an engine upgrade: an entry the previous wasmtime (48) wrote
//! is never loaded, never a crash; the plugin is compiled again and a new entry replaces it.

use std::path::{Path, PathBuf};

use crate::compat_common;
use crate::support::{TestEnv, stderr, stdout};

/// The directory wasmtime 48's engine (warden's configuration) kept its entries in.
const OLD_ENGINE_DIR: &str = "242fa37e306ec749055e53ab48e07603";

/// `tests/fixtures/v0.1.0/event_counter.wasm` compiled by wasmtime 48 (warden before the
/// upgrade), as it left it in the cache.
fn old_artifact() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("cache-wasmtime-48")
        .join("event_counter.cwasm");
    std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn sha256_of(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(std::fs::read(path).unwrap()))
}

/// Engine directories under the cache root other than the old engine's.
fn new_engine_dirs(cache: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache)
        .map(|dirs| {
            dirs.flatten()
                .map(|d| d.path())
                .filter(|p| p.is_dir() && !p.ends_with(OLD_ENGINE_DIR))
                .collect()
        })
        .unwrap_or_default()
}

fn doctor_loads_counter(env: &TestEnv) {
    let out = env.run(&["doctor"]);
    let text = stdout(&out);
    assert!(
        text.contains("ok    plugin counter (hook, user layer) loads"),
        "{text}\n{}",
        stderr(&out)
    );
    assert!(!text.contains("FAIL"), "{text}\n{}", stderr(&out));
}

#[test]
fn an_entry_of_the_previous_engine_is_a_miss_and_is_replaced() {
    let env = TestEnv::new();
    let component = compat_common::frozen("v0.1.0", "event_counter.wasm");
    let sha = sha256_of(&component);
    env.user_config(&format!(
        "[[plugins]]\nname = \"counter\"\nkind = \"hook\"\npath = \"{}\"\n",
        component.display()
    ));
    let cache = env.state_home().join("cache").join("compiled");
    let old_dir = cache.join(OLD_ENGINE_DIR);
    std::fs::create_dir_all(&old_dir).unwrap();
    let old_entry = old_dir.join(format!("{sha}.cwasm"));
    std::fs::write(&old_entry, old_artifact()).unwrap();

    // The old engine's directory is not this engine's: a miss, compiled again into its own.
    doctor_loads_counter(&env);
    let dirs = new_engine_dirs(&cache);
    assert_eq!(dirs.len(), 1, "one directory for this engine: {dirs:?}");
    let entry = dirs[0].join(format!("{sha}.cwasm"));
    assert!(entry.is_file(), "{} written", entry.display());
    assert_eq!(std::fs::read(&old_entry).unwrap(), old_artifact());

    // The old artifact under this engine's own key (as if the key had not changed): refused by
    // its header, discarded, compiled again; the plugin still loads.
    std::fs::write(&entry, old_artifact()).unwrap();
    doctor_loads_counter(&env);
    let rewritten = std::fs::read(&entry).unwrap();
    assert_ne!(rewritten, old_artifact(), "the stale entry was replaced");
    assert!(!rewritten.is_empty());
}
