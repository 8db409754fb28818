//! The `warden` command line, built inside the test crate so tests can run it as a real process
//! (`env!("CARGO_BIN_EXE_warden-under-test")`). Same code as the `warden` binary.

fn main() -> std::process::ExitCode {
    warden::cli::main()
}
