//! What "always" at a write's approval saves: the narrowest path glob that covers the target
//! and its neighbours — the top-level directory it is in (`src/**`), or the file's own name
//! for a file at the workspace root.

/// The glob an "always" for a write to `relative` (a path below the workspace, `/`-separated,
/// `.` and `..` resolved) saves; `None` for a target that is not below the workspace.
pub fn write_scope(relative: &str) -> Option<String> {
    let relative = relative.trim_start_matches("./");
    if relative.is_empty()
        || relative.starts_with('/')
        || relative
            .split('/')
            .any(|part| part == ".." || part.is_empty())
        || relative.contains(['*', '?', '[', '{'])
    {
        return None;
    }
    Some(match relative.split_once('/') {
        Some((top, _)) => format!("{top}/**"),
        None => relative.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::write_scope;

    #[test]
    fn a_target_is_covered_by_its_top_directory_or_its_name() {
        assert_eq!(write_scope("src/a/b.rs").as_deref(), Some("src/**"));
        assert_eq!(write_scope("./notes.txt").as_deref(), Some("notes.txt"));
        assert_eq!(write_scope("/etc/passwd"), None);
        assert_eq!(write_scope("../x"), None);
        assert_eq!(write_scope("a//b"), None);
        assert_eq!(write_scope("src/*.rs"), None);
        assert_eq!(write_scope(""), None);
    }
}
