//! Which of the sandbox's refusals a failed command's output points at: only those are named
//! after it. A build tool that tries a lock it can do without, then fails a test, gets no
//! note; a command whose output names the refused path, or reports a permission (or network)
//! error, does.

use std::path::Path;

/// What a write refused by the kernel makes a program say (lower case).
const PERMISSION_ERRORS: &[&str] = &[
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "os error 13",
    "os error 1)",
    "os error 30",
    "eacces",
    "eperm",
    "erofs",
    "access is denied",
];

/// What a refused connect or lookup makes a program say (lower case).
const NETWORK_ERRORS: &[&str] = &[
    "could not resolve",
    "couldn't resolve",
    "name resolution",
    "name or service not known",
    "no address associated",
    "network is unreachable",
    "connection refused",
    "failed to connect",
    "could not connect",
    "couldn't connect",
    "dns",
    "getaddrinfo",
    "eai_again",
    "enotfound",
    "econnrefused",
    "enetunreach",
    "os error 101",
    "os error 111",
    "network",
    "offline",
    "timed out",
];

/// A file name short enough to appear by chance is not taken as a mention.
const MIN_NAME_LEN: usize = 4;

/// Whether `output` points at a refused write to `path`: it names the path (whole, or its
/// file name), or it reports a permission error.
pub(super) fn points_at_write(output: &str, path: &Path) -> bool {
    let lower = output.to_lowercase();
    if PERMISSION_ERRORS.iter().any(|e| lower.contains(e)) {
        return true;
    }
    if output.contains(&*path.to_string_lossy()) {
        return true;
    }
    path.file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|name| name.len() >= MIN_NAME_LEN && output.contains(&*name))
}

/// Whether `output` points at a refused connect or lookup to `destination` (`address:port`):
/// it names the address, or reports a network error.
pub(super) fn points_at_network(output: &str, destination: &str) -> bool {
    let lower = output.to_lowercase();
    if NETWORK_ERRORS.iter().any(|e| lower.contains(e)) {
        return true;
    }
    let address = destination
        .rsplit_once(':')
        .map_or(destination, |(address, _)| address)
        .trim_matches(['[', ']']);
    !address.is_empty() && output.contains(address)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_assertion_points_at_nothing() {
        let output = "test adds ... FAILED\nassertion `left == right` failed: arithmetic is off\n";
        assert!(!points_at_write(
            output,
            Path::new("/home/u/.cargo/.package-cache")
        ));
        assert!(!points_at_network(output, "10.0.0.53:53"));
    }

    #[test]
    fn a_named_path_or_a_permission_error_points_at_the_write() {
        let path = Path::new("/home/u/out/report.txt");
        assert!(points_at_write(
            "sh: 1: cannot create /home/u/out/report.txt: x",
            path
        ));
        assert!(points_at_write("wrote report.txt? no", path));
        assert!(points_at_write(
            "error: Permission denied (os error 13)",
            path
        ));
        assert!(!points_at_write("lab results", Path::new("/x/ab")));
    }

    #[test]
    fn a_network_error_or_the_address_points_at_the_connect() {
        assert!(points_at_network(
            "curl: (6) Could not resolve host: x",
            "10.0.0.53:53"
        ));
        assert!(points_at_network(
            "connecting to 93.184.216.34 ...",
            "93.184.216.34:443"
        ));
        assert!(!points_at_network("1 test failed", "93.184.216.34:443"));
    }
}
