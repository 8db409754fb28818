//! A warden resolver: serves `@path` references and the model's file tools from the workspace,
//! which it sees read-only. A starting point: it has no deny list and no directory listings of
//! its own beyond one level; warden's built-in resolver is the full reference.
//!
//! Config: `roots` (added by warden: the workspace roots, one per line; the first is primary).

use std::path::{Component, Path, PathBuf};

use warden_plugin::Config;
use warden_plugin::resolver::{
    EntryKind, FileChunk, FileRef, Listing, ResolveError, Resolved, Resolver,
};

struct Plugin {
    root: PathBuf,
}

impl Plugin {
    /// `path` under the root, or why not.
    fn locate(&self, path: &str) -> Result<PathBuf, ResolveError> {
        let relative = Path::new(path);
        let escapes = relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
        if escapes {
            return Err(ResolveError::OutOfScope(format!(
                "{path} is outside the workspace"
            )));
        }
        Ok(self.root.join(relative))
    }

    fn read(&self, path: &str) -> Result<String, ResolveError> {
        let full = self.locate(path)?;
        // The SDK's read: one host call per 64 KiB on this thread (`std::fs` hands every
        // read to a host thread).
        let bytes = warden_plugin::fs::read(&full).map_err(|err| match err.kind() {
            std::io::ErrorKind::NotFound => ResolveError::NotFound(format!("{path} not found")),
            _ => ResolveError::Io(format!("{path}: {err}")),
        })?;
        String::from_utf8(bytes).map_err(|_| ResolveError::Binary(format!("{path} is not text")))
    }
}

/// Cut `text` to at most `max` bytes at a character boundary.
fn cap(text: &str, max: u64) -> (String, bool) {
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    if text.len() <= max {
        return (text.to_owned(), false);
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    (
        format!(
            "{}\n[...truncated, {} bytes total]",
            &text[..cut],
            text.len()
        ),
        true,
    )
}

impl Resolver for Plugin {
    fn init(config: Config) -> Result<Self, String> {
        let roots = config.require("roots")?;
        let root = roots.lines().next().ok_or("config key `roots` is empty")?;
        Ok(Self {
            root: PathBuf::from(root),
        })
    }

    fn resolve(&mut self, request: FileRef) -> Result<Resolved, ResolveError> {
        let text = self.read(&request.path)?;
        let (content, truncated) = cap(&text, request.max_bytes);
        Ok(Resolved {
            path: request.path,
            kind: EntryKind::File,
            content,
            total_bytes: text.len() as u64,
            truncated,
        })
    }

    fn read_file(
        &mut self,
        path: String,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        let text = self.read(&path)?;
        let lines: Vec<&str> = text.lines().collect();
        let first = offset.max(1);
        let start = (first as usize - 1).min(lines.len());
        let end = start.saturating_add(limit as usize).min(lines.len());
        let (content, _) = cap(&lines[start..end].join("\n"), max_bytes);
        Ok(FileChunk {
            path,
            content,
            first_line: first,
            lines: (end - start) as u32,
            total_lines: lines.len() as u32,
            more: end < lines.len(),
        })
    }

    fn list_files(&mut self, path: String, max_entries: u32) -> Result<Listing, ResolveError> {
        let dir = self.locate(&path)?;
        let read = std::fs::read_dir(&dir)
            .map_err(|err| ResolveError::NotFound(format!("{path}: {err}")))?;
        let mut entries: Vec<String> = read
            .filter_map(Result::ok)
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.path().is_dir() {
                    format!("{name}/")
                } else {
                    name
                }
            })
            .collect();
        entries.sort();
        let truncated = entries.len() > max_entries as usize;
        entries.truncate(max_entries as usize);
        Ok(Listing {
            path,
            entries,
            truncated,
        })
    }
}

warden_plugin::export_resolver!(Plugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_out_of_the_workspace_are_refused_and_text_is_capped() {
        let plugin = Plugin {
            root: PathBuf::from("/ws"),
        };
        assert!(matches!(
            plugin.locate("../etc/passwd"),
            Err(ResolveError::OutOfScope(_))
        ));
        assert!(matches!(
            plugin.locate("/etc/passwd"),
            Err(ResolveError::OutOfScope(_))
        ));
        assert_eq!(
            plugin.locate("src/lib.rs").ok(),
            Some(PathBuf::from("/ws/src/lib.rs"))
        );
        assert_eq!(
            cap("héllo", 2),
            ("h\n[...truncated, 6 bytes total]".to_owned(), true)
        );
    }
}
