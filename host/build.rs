//! Compiles the guest workspace `plugins/` to components: the built-in resolver, embedded in
//! the binary, and the sample plugins, whose paths tests and benchmarks read from
//! `WARDEN_<NAME>_WASM`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;

#[path = "guest_build.rs"]
mod guest_build;

const GUESTS: &[&str] = &[
    "file-ref",
    "keyword-context",
    "pattern-guard",
    "event-counter",
    "todo-reminder",
    "grep-tool",
    "edit-tool",
    "tool-guard",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().map(PathBuf::from).unwrap_or_default();
    println!("cargo:rerun-if-changed={}", root.join("wit").display());
    match guest_build::build_guests(&root.join("plugins"), GUESTS, &guest_build::target_root()) {
        Ok(built) => {
            for (name, path) in built {
                println!(
                    "cargo:rustc-env=WARDEN_{}_WASM={}",
                    guest_build::env_name(&name),
                    path.display()
                );
            }
        }
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(1);
        }
    }
}
