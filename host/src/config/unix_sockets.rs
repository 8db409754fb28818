//! Unix socket grants: `[tools.shell] unix_sockets` and an `[[mcp]]` entry's `unix_sockets`
//! name the socket paths a sandboxed command may connect to although no process of its
//! sandbox listens there (an SSH agent, a container engine's socket). Each is an absolute
//! path the kernel can take (under 108 bytes, no `.` or `..`); managed policy's
//! `policy.unix_sockets` is a ceiling a user grant must stay within (refused, never
//! narrowed); a grant inside a workspace root is refused where the roots are known (a
//! command could put its own socket there).

use std::path::{Path, PathBuf};

/// The longest socket path the kernel takes (`sun_path` holds 108 bytes with the NUL).
const MAX_SOCKET_PATH: usize = 107;

/// Refuse a path that is not absolute, holds `.`/`..`, a NUL byte, or is too long for a
/// socket address.
pub fn check_socket_paths(paths: &[PathBuf]) -> Result<(), String> {
    for path in paths {
        let text = path.to_string_lossy();
        if !path.is_absolute() {
            return Err(format!("{text:?}: a socket path must be absolute"));
        }
        if text.split('/').any(|part| part == "." || part == "..") {
            return Err(format!(
                "{text:?}: `.` and `..` are not allowed in a socket path"
            ));
        }
        let len = path.as_os_str().len();
        if len > MAX_SOCKET_PATH || text.contains('\0') {
            return Err(format!(
                "{text:?}: not a socket path the kernel takes (at most {MAX_SOCKET_PATH} bytes, no NUL)"
            ));
        }
    }
    Ok(())
}

/// The first grant outside managed policy's `ceiling` (`policy.unix_sockets`), if any.
pub fn outside_ceiling<'a>(paths: &'a [PathBuf], ceiling: Option<&[PathBuf]>) -> Option<&'a Path> {
    let ceiling = ceiling?;
    paths
        .iter()
        .find(|p| !ceiling.contains(p))
        .map(PathBuf::as_path)
}

/// The first grant inside one of `roots`, if any.
pub fn inside_roots<'a>(paths: &'a [PathBuf], roots: &[PathBuf]) -> Option<&'a Path> {
    paths
        .iter()
        .find(|p| roots.iter().any(|root| p.starts_with(root)))
        .map(PathBuf::as_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_paths_must_be_absolute_plain_and_short() {
        assert!(check_socket_paths(&["/run/user/1000/ssh-agent.sock".into()]).is_ok());
        for bad in ["agent.sock", "/run/../tmp/x.sock", "/run/./x.sock"] {
            assert!(check_socket_paths(&[bad.into()]).is_err(), "{bad}");
        }
        let long = format!("/{}", "a".repeat(MAX_SOCKET_PATH));
        assert!(check_socket_paths(&[long.into()]).is_err());
    }

    #[test]
    fn grants_are_held_to_the_ceiling_and_kept_out_of_the_roots() {
        let grants: Vec<PathBuf> = vec!["/run/a.sock".into(), "/run/b.sock".into()];
        assert_eq!(outside_ceiling(&grants, None), None);
        let ceiling: Vec<PathBuf> = vec!["/run/a.sock".into()];
        assert_eq!(
            outside_ceiling(&grants, Some(&ceiling)),
            Some(Path::new("/run/b.sock"))
        );
        assert_eq!(inside_roots(&grants, &["/srv/ws".into()]), None);
        assert_eq!(
            inside_roots(&grants, &["/run".into()]),
            Some(Path::new("/run/a.sock"))
        );
    }
}
