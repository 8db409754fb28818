//! The kernel's own name of an opened file or directory: on Linux the target of
//! `/proc/self/fd/N`. Where that cannot be known the guard fails closed: [`probe`] refuses the
//! grant at load, and a descriptor whose name cannot be read is never used.

use std::path::{Path, PathBuf};

/// The real path of `file`, or why it cannot be known.
#[cfg(target_os = "linux")]
pub(crate) fn real_path(file: &std::fs::File) -> std::io::Result<PathBuf> {
    use std::os::fd::AsRawFd;
    let link = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
    // The kernel marks a removed file's name; it no longer names what is open.
    if link.as_os_str().as_encoded_bytes().ends_with(b" (deleted)") || !link.is_absolute() {
        return Err(std::io::Error::other(format!(
            "{}: not a live path",
            link.display()
        )));
    }
    Ok(link)
}

/// The real path of `file`, or why it cannot be known.
#[cfg(not(target_os = "linux"))]
pub(crate) fn real_path(_file: &std::fs::File) -> std::io::Result<PathBuf> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "the real path of a descriptor is known on Linux only",
    ))
}

/// Checks that the real path of an opened `root` can be read and is `root` itself (its
/// canonical form), so that the guard can work: that canonical form, or why not.
pub(crate) fn probe(root: &Path) -> Result<PathBuf, String> {
    let file = std::fs::File::open(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let real = real_path(&file).map_err(|e| {
        format!(
            "the real path of an open file cannot be known here ({e}); the `fs` grant is \
             refused rather than served unchecked"
        )
    })?;
    let canonical = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    if real != canonical {
        return Err(format!(
            "{}: the kernel names it {}, not {}; the `fs` grant is refused rather than \
             served unchecked",
            root.display(),
            real.display(),
            canonical.display()
        ));
    }
    Ok(real)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_kernel_names_the_target_of_a_symlink_and_follows_a_rename() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::os::unix::fs::symlink("a.txt", root.join("link")).unwrap();
        let file = std::fs::File::open(root.join("link")).unwrap();
        assert_eq!(real_path(&file).unwrap(), root.join("a.txt"));
        std::fs::rename(root.join("a.txt"), root.join("b.txt")).unwrap();
        assert_eq!(real_path(&file).unwrap(), root.join("b.txt"));
        std::fs::remove_file(root.join("b.txt")).unwrap();
        assert!(real_path(&file).is_err(), "a removed file has no real path");
        assert_eq!(probe(&root), Ok(root.clone()));
    }
}
