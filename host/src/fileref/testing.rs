//! An in-memory resolver for unit tests of the stage, the placements and the tools (the real
//! component is exercised by the end-to-end tests).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use crate::domain::Resolve;
use crate::domain::{EntryKind, FileChunk, Listing, ResolveError, ResolveRequest, Resolved};

/// Files by path; a path ending in `/` is a directory whose content is its listing.
#[derive(Debug, Default)]
pub struct MapResolver {
    pub files: BTreeMap<String, Result<String, ResolveError>>,
    pub requests: Vec<ResolveRequest>,
}

impl MapResolver {
    pub fn with(files: &[(&str, &str)]) -> Self {
        let mut r = Self::default();
        for (path, body) in files {
            r.files.insert((*path).to_owned(), Ok((*body).to_owned()));
        }
        r
    }

    pub fn fail(mut self, path: &str, error: ResolveError) -> Self {
        self.files.insert(path.to_owned(), Err(error));
        self
    }

    fn lookup(&self, path: &str) -> Result<(String, EntryKind, String), ResolveError> {
        let key = path.trim_end_matches('/');
        if let Some(found) = self.files.get(key) {
            return found
                .clone()
                .map(|body| (key.to_owned(), EntryKind::File, body));
        }
        match self.files.get(&format!("{key}/")) {
            Some(found) => found
                .clone()
                .map(|body| (key.to_owned(), EntryKind::Directory, body)),
            None => Err(ResolveError::NotFound(format!(
                "{path}: no such file or directory"
            ))),
        }
    }
}

impl Resolve for MapResolver {
    fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
        self.requests.push(request.clone());
        let (path, kind, body) = self.lookup(&request.path)?;
        let total = body.len() as u64;
        let body = match request.range {
            None => body,
            Some(r) => body
                .split_inclusive('\n')
                .skip(r.start as usize - 1)
                .take((r.end - r.start + 1) as usize)
                .collect(),
        };
        let cap = request.max_bytes as usize;
        let (content, truncated) = if body.len() > cap {
            let mut end = cap;
            while !body.is_char_boundary(end) {
                end -= 1;
            }
            (
                format!(
                    "{}\n{}",
                    &body[..end],
                    crate::domain::defaults::truncation_marker(total)
                ),
                true,
            )
        } else {
            (body, false)
        };
        Ok(Resolved {
            path,
            kind,
            content,
            total_bytes: total,
            truncated,
        })
    }

    fn read_file(
        &mut self,
        path: &str,
        offset: u32,
        limit: u32,
        _max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        let (path, _, body) = self.lookup(path)?;
        let lines: Vec<&str> = body.split_inclusive('\n').collect();
        let first = offset.max(1);
        let served: Vec<&str> = lines
            .iter()
            .skip(first as usize - 1)
            .take(limit as usize)
            .copied()
            .collect();
        Ok(FileChunk {
            path,
            content: served.concat(),
            first_line: first,
            lines: served.len() as u32,
            total_lines: lines.len() as u32,
            more: (first as usize - 1 + served.len()) < lines.len(),
        })
    }

    fn list_files(&mut self, path: &str, max_entries: u32) -> Result<Listing, ResolveError> {
        let (path, kind, body) = self.lookup(path)?;
        if kind != EntryKind::Directory {
            return Err(ResolveError::Io(format!("{path} is not a directory")));
        }
        let all: Vec<String> = body.lines().map(str::to_owned).collect();
        let truncated = all.len() > max_entries as usize;
        Ok(Listing {
            path,
            entries: all.into_iter().take(max_entries as usize).collect(),
            truncated,
        })
    }
}
