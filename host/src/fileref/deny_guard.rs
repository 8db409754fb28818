//! The host's own deny check around any resolver. A resolver component runs in a sandbox but
//! decides itself what to serve; a custom one may ignore the deny globs it is handed. So the
//! host refuses a request whose path is denied before the resolver sees it, and refuses any
//! result whose reported path is denied after the resolver returns (listings lose their denied
//! entries). The check is on the host's side of the boundary: a hostile resolver cannot skip it.

use super::deny::DenyGlobs;
use crate::domain::Resolve;
use crate::domain::{EntryKind, FileChunk, Listing, ResolveError, ResolveRequest, Resolved};

/// A [`Resolve`]r whose requests and results are checked against the deny globs.
pub struct DenyGuard<R> {
    inner: R,
    deny: DenyGlobs,
}

impl<R> DenyGuard<R> {
    /// Guard `inner` with `deny`.
    pub fn new(inner: R, deny: DenyGlobs) -> Self {
        Self { inner, deny }
    }

    fn check(&self, path: &str) -> Result<(), ResolveError> {
        if self.deny.denies(path) {
            return Err(ResolveError::Denied(format!(
                "{} matches the workspace's deny list",
                path.escape_debug()
            )));
        }
        Ok(())
    }

    /// Drop the entries of a listing of `dir` that are denied.
    fn keep_allowed<'a>(&'a self, dir: &'a str) -> impl Fn(&str) -> bool + 'a {
        move |entry: &str| {
            let name = entry.trim_end_matches('/');
            let full = if dir.is_empty() || dir == "." {
                name.to_owned()
            } else {
                format!("{}/{name}", dir.trim_end_matches('/'))
            };
            !self.deny.denies(&full)
        }
    }
}

impl<R: Resolve> Resolve for DenyGuard<R> {
    fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
        self.check(&request.path)?;
        let mut resolved = self.inner.resolve(request)?;
        self.check(&resolved.path)?;
        if resolved.kind == EntryKind::Directory {
            // Listing lines are entries relative to the directory, except the notes
            // `(empty directory)` and `[... N more entries not listed]`; a denied entry goes
            // whatever it looks like.
            let keep = self.keep_allowed(&resolved.path);
            let content: String = resolved
                .content
                .split_inclusive('\n')
                .filter(|line| {
                    let entry = line.trim_end_matches('\n');
                    is_listing_note(entry) || keep(entry)
                })
                .collect();
            resolved.content = content;
        }
        Ok(resolved)
    }

    fn read_file(
        &mut self,
        path: &str,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        self.check(path)?;
        let chunk = self.inner.read_file(path, offset, limit, max_bytes)?;
        self.check(&chunk.path)?;
        Ok(chunk)
    }

    fn list_files(&mut self, path: &str, max_entries: u32) -> Result<Listing, ResolveError> {
        self.check(path)?;
        let mut listing = self.inner.list_files(path, max_entries)?;
        self.check(&listing.path)?;
        let keep = self.keep_allowed(&listing.path);
        let entries = listing
            .entries
            .iter()
            .filter(|e| keep(e))
            .cloned()
            .collect();
        drop(keep);
        listing.entries = entries;
        Ok(listing)
    }

    fn new_turn(&mut self) {
        self.inner.new_turn();
    }
}

/// The notes a listing may end with (see docs/resolver.md).
fn is_listing_note(line: &str) -> bool {
    line == "(empty directory)"
        || (line.starts_with("[... ") && line.ends_with(" more entries not listed]"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::PathBuf;

    use super::*;

    /// A resolver that serves whatever is asked, reporting `reported` as the path.
    struct Careless {
        reported: Option<String>,
    }

    impl Resolve for Careless {
        fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
            Ok(Resolved {
                path: self.reported.clone().unwrap_or(request.path.clone()),
                kind: EntryKind::File,
                content: "SECRET".into(),
                total_bytes: 6,
                truncated: false,
            })
        }

        fn read_file(
            &mut self,
            path: &str,
            _: u32,
            _: u32,
            _: u64,
        ) -> Result<FileChunk, ResolveError> {
            Ok(FileChunk {
                path: self.reported.clone().unwrap_or(path.to_owned()),
                content: "SECRET".into(),
                first_line: 1,
                lines: 1,
                total_lines: 1,
                more: false,
            })
        }

        fn list_files(&mut self, path: &str, _: u32) -> Result<Listing, ResolveError> {
            Ok(Listing {
                path: path.to_owned(),
                entries: vec![
                    ".env".into(),
                    "a.txt".into(),
                    "corp/".into(),
                    "keys/x.pem".into(),
                ],
                truncated: false,
            })
        }
    }

    fn guard(reported: Option<&str>) -> DenyGuard<Careless> {
        let globs = vec![
            ".env".to_owned(),
            "corp/**".to_owned(),
            "**/*.pem".to_owned(),
        ];
        DenyGuard::new(
            Careless {
                reported: reported.map(str::to_owned),
            },
            DenyGlobs::new(&globs, &[PathBuf::from("/ws")]).unwrap(),
        )
    }

    fn request(path: &str) -> ResolveRequest {
        ResolveRequest {
            path: path.into(),
            range: None,
            max_bytes: 100,
        }
    }

    #[test]
    fn denied_requests_and_results_never_pass() {
        let mut g = guard(None);
        assert!(matches!(
            g.resolve(&request(".env")),
            Err(ResolveError::Denied(_))
        ));
        assert!(matches!(
            g.resolve(&request("/ws/corp/x")),
            Err(ResolveError::Denied(_))
        ));
        assert!(g.resolve(&request("ok.txt")).is_ok());
        assert!(matches!(
            g.read_file("sub/.env", 0, 0, 9),
            Err(ResolveError::Denied(_))
        ));
        // The reported path is checked too.
        let mut g = guard(Some("corp/plan.txt"));
        assert!(matches!(
            g.resolve(&request("ok.txt")),
            Err(ResolveError::Denied(_))
        ));
        assert!(matches!(
            g.read_file("ok.txt", 0, 0, 9),
            Err(ResolveError::Denied(_))
        ));
        let mut g = guard(None);
        let listing = g.list_files(".", 10).unwrap();
        assert_eq!(listing.entries, ["a.txt"]);
    }

    /// A resolver answering every reference with a directory listing.
    struct Lister;

    impl Resolve for Lister {
        fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
            Ok(Resolved {
                path: request.path.clone(),
                kind: EntryKind::Directory,
                content: ".env\na.txt\n[x].pem\ncorp/\n[... 3 more entries not listed]\n".into(),
                total_bytes: 4,
                truncated: true,
            })
        }

        fn read_file(
            &mut self,
            _: &str,
            _: u32,
            _: u32,
            _: u64,
        ) -> Result<FileChunk, ResolveError> {
            Err(ResolveError::NotFound(String::new()))
        }

        fn list_files(&mut self, _: &str, _: u32) -> Result<Listing, ResolveError> {
            Err(ResolveError::NotFound(String::new()))
        }
    }

    #[test]
    fn denied_entries_leave_directory_references() {
        let globs = vec![
            ".env".to_owned(),
            "corp/**".to_owned(),
            "**/*.pem".to_owned(),
        ];
        let mut g = DenyGuard::new(
            Lister,
            DenyGlobs::new(&globs, &[PathBuf::from("/ws")]).unwrap(),
        );
        let resolved = g.resolve(&request(".")).unwrap();
        assert_eq!(resolved.content, "a.txt\n[... 3 more entries not listed]\n");
    }
}
