//! The `warden` command line.

/// Entry point of the binary.
pub fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
