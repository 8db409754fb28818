//! Compiles the guest workspace `plugins/` to components: the built-in resolver, embedded in
//! the binary, and the sample plugins, whose paths tests and benchmarks read from
//! `WARDEN_<NAME>_WASM` and which the binary carries as `builtin:NAME`. Also lists the guest
//! SDK's files for the binary to carry (see `embed_build.rs`).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;

#[path = "embed_build.rs"]
mod embed_build;
#[path = "guest_build.rs"]
mod guest_build;
#[path = "version_build.rs"]
mod version_build;

const GUESTS: &[&str] = &[
    "file-ref",
    "keyword-context",
    "pattern-guard",
    "event-counter",
    "todo-reminder",
    "grep-tool",
    "edit-tool",
    "tool-guard",
    "web-fetch",
];

/// The samples the binary carries (`path = "builtin:NAME"`); the built-in resolver is apart.
const SAMPLES: &[&str] = &[
    "tool-guard",
    "keyword-context",
    "pattern-guard",
    "todo-reminder",
    "event-counter",
    "grep-tool",
    "edit-tool",
    "web-fetch",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().map(PathBuf::from).unwrap_or_default();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let plugins = root.join("plugins");
    println!("cargo:rerun-if-changed={}", root.join("wit").display());
    let result = guest_build::build_guests(&plugins, GUESTS, &guest_build::target_root())
        .and_then(|built| {
            for (name, path) in &built {
                println!(
                    "cargo:rustc-env=WARDEN_{}_WASM={}",
                    guest_build::env_name(name),
                    path.display()
                );
            }
            let digests = embed_build::write_builtins(&plugins, SAMPLES, &built, &out_dir)?;
            // For the trust record of a `builtin:` entry (the config layer reads no plugin).
            println!("cargo:rustc-env=WARDEN_BUILTIN_DIGESTS={digests}");
            Ok(())
        })
        .and_then(|()| embed_build::write_sdk_files(&plugins, &out_dir))
        .and_then(|()| version_build::emit(&root));
    if let Err(message) = result {
        eprintln!("{message}");
        std::process::exit(1);
    }
}
