//! The `warden` binary: parses the command line and hands over to [`warden::cli`].

fn main() -> std::process::ExitCode {
    warden::cli::main()
}
