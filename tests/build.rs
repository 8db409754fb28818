//! Compiles the test guests in `fixtures/guests` to components and exposes their paths as
//! `WARDEN_FIXTURE_<NAME>_WASM`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;

#[path = "../host/guest_build.rs"]
mod guest_build;

const GUESTS: &[&str] = &[
    "hostile",
    "hostile-hook",
    "hostile-resolver",
    "future-version",
    "other-world",
    "leaky-resolver",
    "hostile-tool",
    "bytes-resolver",
];
const SAMPLES: &[&str] = &[
    "keyword-context",
    "pattern-guard",
    "event-counter",
    "file-ref",
    "todo-reminder",
    "grep-tool",
    "edit-tool",
    "tool-guard",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().map(PathBuf::from).unwrap_or_default();
    println!(
        "cargo:rerun-if-changed={}",
        root.join("plugins").join("sdk").display()
    );
    println!("cargo:rerun-if-changed={}", root.join("wit").display());
    let guests = manifest.join("fixtures").join("guests");
    // A target directory of their own: `leaky-resolver` builds `file-ref` and the SDK, which the
    // host's build script also builds from the `plugins` workspace; sharing one directory would
    // let one workspace's artifacts replace the other's.
    let fixtures_target = guest_build::target_root().join("test-fixtures");
    let built =
        guest_build::build_guests(&guests, GUESTS, &fixtures_target).and_then(|mut built| {
            // The samples are built by the host's build script too; this reuses its output.
            built.extend(guest_build::build_guests(
                &root.join("plugins"),
                SAMPLES,
                &guest_build::target_root(),
            )?);
            Ok(built)
        });
    match built {
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
