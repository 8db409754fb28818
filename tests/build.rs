//! Compiles the test guests in `fixtures/guests` to components and exposes their paths as
//! `WARDEN_FIXTURE_<NAME>_WASM`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;

#[path = "../host/guest_build.rs"]
mod guest_build;

const GUESTS: &[&str] = &["hostile", "hostile-hook", "future-version", "other-world"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().map(PathBuf::from).unwrap_or_default();
    println!("cargo:rerun-if-changed={}", root.join("plugins").join("sdk").display());
    println!("cargo:rerun-if-changed={}", root.join("wit").display());
    let guests = manifest.join("fixtures").join("guests");
    match guest_build::build_guests(&guests, GUESTS, &guest_build::target_root()) {
        Ok(built) => {
            for (name, path) in built {
                println!(
                    "cargo:rustc-env=WARDEN_FIXTURE_{}_WASM={}",
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
