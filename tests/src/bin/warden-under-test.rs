//! The `warden` command line, built inside the test crate so tests can run it as a real process
//! (`env!("CARGO_BIN_EXE_warden-under-test")`). Same code as the `warden` binary, except that
//! the system managed file (`/etc/warden/managed.toml` in `warden`) is read from where
//! `$WARDEN_TEST_SYSTEM_MANAGED_CONFIG` says, so that tests can exercise a system policy
//! without writing to `/etc`. The shipped binary has no such variable (docs/decisions.md).

fn main() -> std::process::ExitCode {
    match std::env::var_os("WARDEN_TEST_SYSTEM_MANAGED_CONFIG") {
        Some(path) if !path.is_empty() => warden::cli::main_with_system_managed(path.into()),
        _ => warden::cli::main(),
    }
}
