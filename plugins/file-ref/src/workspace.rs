//! The resolver's operations over the workspace roots: resolve a reference, serve `read_file`
//! and `list_files`. Every operation goes through [`Workspace::locate`]: scope, deny globs and
//! the file type are checked before anything is opened, so a FIFO or a device is never opened.

use warden_plugin::{EntryKind, FileChunk, LineRange, Listing, ResolveError, Resolved};

use warden_rules::deny::Deny;
use warden_rules::fsys::{self, Meta, OpenFile};
use warden_rules::listing::{self, Listed};

use crate::lines::{SelectError, select_lines};
use crate::scope::{self, Located};
use crate::settings::Settings;
use crate::text::{self, MARGIN, checked_prefix, checked_prefix_owned};

/// The workspace as the resolver sees it.
#[derive(Debug)]
pub struct Workspace {
    settings: Settings,
    deny: Deny,
}

/// A located, allowed path and the name to show for it.
struct Target {
    located: Located,
    shown: String,
}

impl Workspace {
    /// A workspace with these settings, or why the deny globs are invalid.
    pub fn new(settings: Settings) -> Result<Self, String> {
        let deny = Deny::new(&settings.deny)?;
        Ok(Self { settings, deny })
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Resolve one reference.
    pub fn resolve(
        &self,
        path: &str,
        range: Option<LineRange>,
        max_bytes: u64,
    ) -> Result<Resolved, ResolveError> {
        let target = self.locate(path)?;
        if target.located.metadata.is_dir() {
            if let Some(range) = range {
                return Err(ResolveError::Io(format!(
                    "{}: a line range (#L{}-{}) cannot apply to a directory",
                    target.shown, range.start, range.end
                )));
            }
            let mut listed = self.list(&target, self.settings.max_entries)?;
            listed.fit(max_bytes);
            listed.sort();
            return Ok(Resolved {
                path: target.shown,
                kind: EntryKind::Directory,
                content: listed.render(),
                total_bytes: listed.entries.len() as u64,
                truncated: listed.omitted > 0,
            });
        }
        if let Some(range) = range {
            check_range(&target.shown, range)?;
        }
        let (file, meta) = open_regular(&target)?;
        let (mut content, truncated) = match range {
            None => read_head(&target.shown, file, max_bytes, meta.len)?,
            Some(range) => self.read_range(&target.shown, file, range, max_bytes)?,
        };
        if truncated {
            text::append_marker(&mut content, meta.len);
        }
        Ok(Resolved {
            path: target.shown,
            kind: EntryKind::File,
            content,
            total_bytes: meta.len,
            truncated,
        })
    }

    /// The model's `read_file`: `limit` lines (0: as many as fit) from 1-based line `offset`
    /// (0: from the start), at most `max_bytes` bytes. Only whole lines are served, except when
    /// the first line alone exceeds `max_bytes`.
    pub fn read_file(
        &self,
        path: &str,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        let target = self.locate(path)?;
        if target.located.metadata.is_dir() {
            return Err(ResolveError::Io(format!(
                "{} is a directory: use list_files",
                target.shown
            )));
        }
        let (file, _) = open_regular(&target)?;
        let first_line = offset.max(1);
        let count = (limit > 0).then_some(u64::from(limit));
        let keep = usize::try_from(max_bytes).unwrap_or(usize::MAX);
        let sel = select_lines(
            file,
            u64::from(first_line),
            count,
            keep,
            self.settings.max_scan_bytes,
            true,
        )
        .map_err(|e| select_error(&target.shown, e, first_line))?;
        if let Some(at) = sel.nul_at {
            return Err(binary(
                &target.shown,
                text::NotText::Nul(usize::try_from(at).unwrap_or(usize::MAX)),
            ));
        }
        let (content, lines) = if !sel.overflow {
            (
                checked_prefix(&sel.bytes, keep, false)
                    .map_err(|e| binary(&target.shown, e))?
                    .0,
                sel.lines(),
            )
        } else if sel.complete_lines > 0 {
            let whole = &sel.bytes[..sel.complete_len];
            (
                checked_prefix(whole, keep, false)
                    .map_err(|e| binary(&target.shown, e))?
                    .0,
                sel.complete_lines,
            )
        } else {
            (
                checked_prefix(&sel.bytes, keep, true)
                    .map_err(|e| binary(&target.shown, e))?
                    .0,
                1,
            )
        };
        Ok(FileChunk {
            path: target.shown,
            content,
            first_line,
            lines: u32::try_from(lines).unwrap_or(u32::MAX),
            total_lines: sel
                .total_lines
                .map_or(0, |t| u32::try_from(t).unwrap_or(u32::MAX)),
            more: sel.more,
        })
    }

    /// The model's `list_files`.
    pub fn list_files(&self, path: &str, max_entries: u32) -> Result<Listing, ResolveError> {
        let target = self.locate(path)?;
        if !target.located.metadata.is_dir() {
            return Err(ResolveError::Io(format!(
                "{} is not a directory: use read_file",
                target.shown
            )));
        }
        let mut listed = self.list(&target, max_entries)?;
        listed.sort();
        let truncated = listed.omitted > 0;
        Ok(Listing {
            path: target.shown,
            entries: listed.entries,
            truncated,
        })
    }

    /// Locate `path` and check scope, deny globs and file type.
    fn locate(&self, path: &str) -> Result<Target, ResolveError> {
        let roots = &self.settings.roots;
        let located = scope::locate(roots, path)?;
        let shown = located.display(roots);
        let is_dir = located.metadata.is_dir();
        let denied = |rel: &str| {
            if is_dir {
                self.deny.dir(rel)
            } else {
                self.deny.file(rel)
            }
        };
        // The written path is checked as well as the real one, once when they are the same.
        let lexical = located.lexical.as_deref().filter(|l| *l != located.real);
        if lexical.is_some_and(denied) || denied(&located.real) {
            return Err(ResolveError::Denied(format!(
                "{} matches the workspace's deny list",
                scope::printable(&shown)
            )));
        }
        if !located.metadata.is_file() && !located.metadata.is_dir() {
            return Err(ResolveError::Special(format!(
                "{} is not a regular file or directory (FIFO, socket or device)",
                scope::printable(&shown)
            )));
        }
        Ok(Target { located, shown })
    }

    fn list(&self, target: &Target, max_entries: u32) -> Result<Listed, ResolveError> {
        let root = self
            .settings
            .roots
            .get(target.located.root)
            .ok_or_else(|| ResolveError::Io(format!("{}: root missing", target.shown)))?;
        listing::list(
            root,
            &target.located.real,
            &target.located.full,
            &self.deny,
            usize::try_from(max_entries).unwrap_or(usize::MAX),
        )
        .map_err(|e| ResolveError::Io(format!("{}: {e}", scope::printable(&target.shown))))
    }

    fn read_range(
        &self,
        shown: &str,
        file: OpenFile,
        range: LineRange,
        max_bytes: u64,
    ) -> Result<(String, bool), ResolveError> {
        let keep = usize::try_from(max_bytes)
            .unwrap_or(usize::MAX)
            .saturating_add(MARGIN);
        let count = u64::from(range.end - range.start) + 1;
        let sel = select_lines(
            file,
            u64::from(range.start),
            Some(count),
            keep,
            self.settings.max_scan_bytes,
            false,
        )
        .map_err(|e| select_error(shown, e, range.start))?;
        // Only the lines shown decide: what was read past them (a chunk reaching into a sparse
        // hole) is not part of the answer.
        if let Some(pos) = sel.bytes.iter().position(|&b| b == 0) {
            let at = sel.nul_at.unwrap_or(pos as u64);
            return Err(binary(
                shown,
                text::NotText::Nul(usize::try_from(at).unwrap_or(usize::MAX)),
            ));
        }
        if sel.lines() == 0 {
            return Err(ResolveError::NotFound(format!(
                "{}: line {} is past the end of the file (0 lines)",
                scope::printable(shown),
                range.start
            )));
        }
        let cap = usize::try_from(max_bytes).unwrap_or(usize::MAX);
        checked_prefix(&sel.bytes, cap, sel.overflow).map_err(|e| binary(shown, e))
    }
}

fn check_range(shown: &str, range: LineRange) -> Result<(), ResolveError> {
    let shown = scope::printable(shown);
    if range.start == 0 {
        return Err(ResolveError::Io(format!(
            "{shown}: invalid line range #L{}: lines are numbered from 1",
            if range.start == range.end {
                range.start.to_string()
            } else {
                format!("{}-{}", range.start, range.end)
            }
        )));
    }
    if range.start > range.end {
        return Err(ResolveError::Io(format!(
            "{shown}: invalid line range #L{}-{}: the start is after the end",
            range.start, range.end
        )));
    }
    Ok(())
}

/// Open a file that was checked to be regular, and check again on the open handle.
fn open_regular(target: &Target) -> Result<(OpenFile, Meta), ResolveError> {
    let shown = || scope::printable(&target.shown);
    let (file, meta) = target
        .located
        .open_file()
        .map_err(|e| ResolveError::Io(format!("{}: {e}", shown())))?;
    if !meta.is_file() {
        return Err(ResolveError::Special(format!(
            "{} is not a regular file",
            shown()
        )));
    }
    Ok((file, meta))
}

/// The first `max_bytes` of a file as text, and whether it was cut.
fn read_head(
    shown: &str,
    mut file: OpenFile,
    max_bytes: u64,
    size: u64,
) -> Result<(String, bool), ResolveError> {
    let cap = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let bytes = fsys::read_prefix(&mut file, cap.saturating_add(MARGIN), size)
        .map_err(|e| ResolveError::Io(format!("{}: {e}", scope::printable(shown))))?;
    let more = bytes.len() > cap;
    checked_prefix_owned(bytes, cap, more).map_err(|e| binary(shown, e))
}

fn binary(shown: &str, why: text::NotText) -> ResolveError {
    ResolveError::Binary(format!("{} {}", scope::printable(shown), why.describe()))
}

fn select_error(shown: &str, e: SelectError, start: u32) -> ResolveError {
    let shown = scope::printable(shown);
    match e {
        SelectError::PastEnd(lines) => ResolveError::NotFound(format!(
            "{shown}: line {start} is past the end of the file ({lines} lines)"
        )),
        SelectError::ScanLimit => ResolveError::TooLarge(format!(
            "{shown}: reaching line {start} would mean reading too far into the file"
        )),
        SelectError::Io(e) => ResolveError::Io(format!("{shown}: {e}")),
    }
}
