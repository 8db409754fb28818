//! What makes git run code in a `.git` the `git` escalation opened, snapshotted before the
//! command and compared after it; a difference is put back and reported.
//!
//! Watched, relative to `.git`: the directory itself by identity (device and inode);
//! `config`, `config.worktree`, `commondir`, `info/attributes` and `hooks/`, which must be
//! as they were; each linked worktree's `worktrees/<name>/{commondir,gitdir,config.worktree}`
//! and each submodule's `modules/**/{config,config.worktree,commondir,info/attributes,hooks/}`,
//! which must be as they were where they existed, and where new may only be what git itself
//! makes (a worktree whose `commondir` is `../..`, a submodule `config` that names no
//! program, sample hooks); and the rebase and sequencer state (`rebase-merge/`,
//! `rebase-apply/`, `sequencer/`), which may advance, appear or go, but never with an `exec`
//! line the person's state did not have, nor a merge strategy other than git's own.
//!
//! Snapshots are bounded ([`MAX_ENTRIES`], [`MAX_FILE_BYTES`], [`MAX_TOTAL_BYTES`]) and never
//! follow a symbolic link: a link is recorded as a link.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::git_harden::{FIXED, neutral};

/// Most entries one `.git`'s watched paths may hold.
pub const MAX_ENTRIES: usize = 20_000;
/// Largest watched file, in bytes.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Most bytes of watched files in one `.git`.
pub const MAX_TOTAL_BYTES: u64 = 32 << 20;

/// Files watched at the top of `.git` and in each submodule's directory.
const FILES: &[&str] = &["config", "config.worktree", "commondir", "info/attributes"];
/// Rebase and sequencer state.
const STATE_DIRS: &[&str] = &["rebase-merge", "rebase-apply", "sequencer"];
/// Inside a linked worktree's directory.
const WORKTREE_FILES: &[&str] = &["commondir", "gitdir", "config.worktree"];
/// Not walked inside `modules/`: git's own data, large and inert.
const MODULE_SKIP: &[&str] = &["objects", "refs", "logs", "lfs", "worktrees"];
/// Merge strategies git ships (another names a program `git-merge-<name>`).
const STRATEGIES: &[&str] = &["ort", "recursive", "resolve", "octopus", "ours", "subtree"];

/// One watched entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    File { bytes: Vec<u8>, mode: u32 },
    Dir { mode: u32 },
    Link(PathBuf),
}

/// One `.git` as it was.
#[derive(Debug)]
struct Snapshot {
    git: PathBuf,
    id: (u64, u64),
    nodes: BTreeMap<PathBuf, Node>,
}

/// The watched state of every `.git` a `git` escalation opened, taken before the command.
#[derive(Debug, Default)]
pub struct GitState {
    repos: Vec<Snapshot>,
}

impl GitState {
    /// Snapshot each of `gits`; an error names the `.git` too large to be checked afterwards.
    pub fn take(gits: &[PathBuf]) -> Result<Self, String> {
        let mut repos = Vec::new();
        for git in gits {
            let meta =
                std::fs::symlink_metadata(git).map_err(|e| format!("{}: {e}", git.display()))?;
            let mut walk = Walk::default();
            walk.all(git).map_err(|why| {
                format!(
                    "{} cannot be checked after the command ({why}); the `git` escalation is refused",
                    git.display()
                )
            })?;
            repos.push(Snapshot {
                git: git.clone(),
                id: (meta.dev(), meta.ino()),
                nodes: walk.nodes,
            });
        }
        Ok(Self { repos })
    }

    /// After the command: put back every difference that could make git run code; one line
    /// for each, naming the path (as `shown` shows it).
    pub fn restore(&self, shown: &dyn Fn(&Path) -> String) -> Vec<String> {
        let mut notes = Vec::new();
        for before in &self.repos {
            restore_one(before, shown, &mut notes);
        }
        notes
    }
}

fn restore_one(before: &Snapshot, shown: &dyn Fn(&Path) -> String, notes: &mut Vec<String>) {
    let git = &before.git;
    let same =
        std::fs::symlink_metadata(git).is_ok_and(|m| m.is_dir() && (m.dev(), m.ino()) == before.id);
    if !same {
        notes.push(replaced(before, shown));
        if !std::fs::symlink_metadata(git).is_ok_and(|m| m.is_dir()) {
            return;
        }
    }
    let mut walk = Walk::default();
    if let Err(why) = walk.all(git) {
        notes.push(format!(
            "{} could not be checked after the command ({why}): check it before running git there",
            shown(git)
        ));
    }
    let after = walk.nodes;
    let mut handled: Vec<PathBuf> = Vec::new();
    for dir in STATE_DIRS {
        let rel = PathBuf::from(dir);
        handled.push(rel.clone());
        state_dir(git, &rel, &before.nodes, &after, shown, notes);
    }
    // New entries git itself makes: a linked worktree, a submodule.
    for (rel, node) in &after {
        if handled.iter().any(|h| rel.starts_with(h)) || before.nodes.contains_key(rel) {
            continue;
        }
        if let Some(why) = new_entry_runs_code(git, rel, node) {
            handled.push(rel.clone());
            notes.push(match remove(&git.join(rel)) {
                Ok(()) => format!("removed {}, which the command created ({why})", shown(&git.join(rel))),
                Err(err) => format!(
                    "the command created {} ({why}), which could not be removed: {err}; remove it before running git there",
                    shown(&git.join(rel))
                ),
            });
        }
    }
    // What was there: put back where changed or gone (gone from `worktrees/` and `modules/`
    // is a worktree or submodule removed: allowed).
    for (rel, node) in &before.nodes {
        if handled.iter().any(|h| rel.starts_with(h)) {
            continue;
        }
        let removable = rel.starts_with("worktrees") || rel.starts_with("modules");
        match after.get(rel) {
            Some(now) if now == node => {}
            None if removable => {}
            now => {
                let path = git.join(rel);
                let what = if now.is_some() { "changed" } else { "removed" };
                notes.push(match put(&path, node) {
                    Ok(()) => format!("put back {}, which the command {what} (it could make git run a program)", shown(&path)),
                    Err(err) => format!(
                        "the command {what} {}, which could not be put back: {err}; check it before running git there",
                        shown(&path)
                    ),
                });
            }
        }
    }
}

/// The line for a `.git` that is no longer the directory it was; the original is looked for
/// beside it and moved back when found.
fn replaced(before: &Snapshot, shown: &dyn Fn(&Path) -> String) -> String {
    let git = &before.git;
    let original = git.parent().and_then(|parent| {
        std::fs::read_dir(parent)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                std::fs::symlink_metadata(p)
                    .is_ok_and(|m| m.is_dir() && (m.dev(), m.ino()) == before.id)
            })
    });
    let Some(original) = original else {
        return format!(
            "{} is no longer the directory it was before the command, and the original was not found beside it: check it before running git there",
            shown(git)
        );
    };
    let aside = git.with_file_name(format!(
        ".git-replaced-{}",
        &uuid::Uuid::now_v7().simple().to_string()[24..]
    ));
    let moved = std::fs::rename(git, &aside).or_else(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Ok(()),
        _ => Err(e),
    });
    match moved.and_then(|()| std::fs::rename(&original, git)) {
        Ok(()) => format!(
            "the command replaced {}: the original was moved back from {} (the replacement is at {})",
            shown(git),
            shown(&original),
            shown(&aside)
        ),
        Err(err) => format!(
            "the command replaced {} (the original is at {}), which could not be put back: {err}; check it before running git there",
            shown(git),
            shown(&original)
        ),
    }
}

/// Rebase or sequencer state `rel`: new or changed state may stay only without `exec` lines
/// the person's state did not have and with git's own merge strategy.
fn state_dir(
    git: &Path,
    rel: &Path,
    before: &BTreeMap<PathBuf, Node>,
    after: &BTreeMap<PathBuf, Node>,
    shown: &dyn Fn(&Path) -> String,
    notes: &mut Vec<String>,
) {
    let under = |nodes: &BTreeMap<PathBuf, Node>| -> BTreeMap<PathBuf, Node> {
        nodes
            .iter()
            .filter(|(p, _)| p.starts_with(rel))
            .map(|(p, n)| (p.clone(), n.clone()))
            .collect()
    };
    let (was, now) = (under(before), under(after));
    if now.is_empty() || was == now {
        return;
    }
    let allowed = exec_lines(&was);
    let new_exec = exec_lines(&now).into_iter().find(|l| !allowed.contains(l));
    let strategy = now.iter().find_map(|(p, n)| match n {
        Node::File { bytes, .. } if p.file_name().is_some_and(|f| f == "strategy") => {
            let s = String::from_utf8_lossy(bytes).trim().to_owned();
            (!STRATEGIES.contains(&s.as_str()) && was.get(p) != Some(n)).then_some(s)
        }
        _ => None,
    });
    let why = match (new_exec, strategy) {
        (Some(line), _) => format!("its todo runs a program: `{line}`"),
        (None, Some(s)) => format!("it names the merge strategy `{s}`, a program"),
        (None, None) => return,
    };
    let path = git.join(rel);
    let result =
        remove(&path).and_then(|()| was.iter().try_for_each(|(p, n)| put(&git.join(p), n)));
    let done = if was.is_empty() {
        "removed"
    } else {
        "put back as it was"
    };
    notes.push(match result {
        Ok(()) => format!("{} {done}: the command left it so that {why}", shown(&path)),
        Err(err) => format!(
            "the command left {} so that {why}, and it could not be {done}: {err}; remove it before running git there",
            shown(&path)
        ),
    });
}

/// The `exec`/`x` lines of the todo files among `nodes`.
fn exec_lines(nodes: &BTreeMap<PathBuf, Node>) -> Vec<String> {
    nodes
        .values()
        .filter_map(|n| match n {
            Node::File { bytes, .. } => Some(String::from_utf8_lossy(bytes).into_owned()),
            _ => None,
        })
        .flat_map(|text| {
            text.lines()
                .map(str::trim_start)
                .filter(|l| {
                    let word = l.split_whitespace().next().unwrap_or_default();
                    word == "exec" || word == "x"
                })
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Why a new entry under `worktrees/` or `modules/` (or at the top) could make git run
/// code; `None` for what git itself makes.
fn new_entry_runs_code(git: &Path, rel: &Path, node: &Node) -> Option<String> {
    let name = rel.file_name()?.to_string_lossy().into_owned();
    let in_hooks = rel.components().any(|c| c.as_os_str() == "hooks");
    if rel.starts_with("worktrees") {
        return match (name.as_str(), node) {
            (_, Node::Dir { .. }) if rel.components().count() == 2 => None,
            ("commondir", Node::File { bytes, .. })
                if String::from_utf8_lossy(bytes).trim() == "../.." =>
            {
                None
            }
            ("gitdir", Node::File { .. }) => None,
            _ => Some("it would point git at other configuration or hooks".to_owned()),
        };
    }
    if rel.starts_with("modules") {
        if in_hooks {
            return match node {
                Node::Dir { .. } => None,
                Node::File { .. } if name.ends_with(".sample") => None,
                _ => Some("a hook git would run".to_owned()),
            };
        }
        return match (name.as_str(), node) {
            ("config", Node::File { .. }) => config_runs_code(&git.join(rel)),
            (_, Node::Dir { .. }) => None,
            _ => Some("it would point git at other configuration or attributes".to_owned()),
        };
    }
    if matches!(node, Node::Dir { .. }) && !in_hooks {
        return None;
    }
    Some("it could make git run a program".to_owned())
}

/// Why the config file at `path` could make git run code (a key that names a program).
fn config_runs_code(path: &Path) -> Option<String> {
    let entries = super::git_config_scan::entries(&[path.to_owned()], None);
    entries
        .iter()
        .find(|(key, value)| {
            let lower = key.to_ascii_lowercase();
            neutral(key, value).is_some()
                || lower.starts_with("include")
                || FIXED.iter().any(|(k, _)| k.eq_ignore_ascii_case(key))
        })
        .map(|(key, _)| format!("its `{key}` names a program git would run"))
}

/// Write `node` at `path` (after removing what is there now).
fn put(path: &Path, node: &Node) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
        if !(is_dir && matches!(node, Node::Dir { .. })) {
            remove(path)?;
        }
    }
    match node {
        Node::Dir { mode } => {
            std::fs::create_dir_all(path)?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))
        }
        Node::File { bytes, mode } => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, bytes)?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))
        }
        Node::Link(target) => std::os::unix::fs::symlink(target, path),
    }
}

fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// One bounded walk of a `.git`'s watched paths.
#[derive(Default)]
struct Walk {
    nodes: BTreeMap<PathBuf, Node>,
    bytes: u64,
}

impl Walk {
    fn all(&mut self, git: &Path) -> Result<(), String> {
        for file in FILES {
            self.entry(git, Path::new(file), false)?;
        }
        self.entry(git, Path::new("hooks"), true)?;
        for dir in STATE_DIRS {
            self.entry(git, Path::new(dir), true)?;
        }
        for worktree in children(&git.join("worktrees"))? {
            let rel = Path::new("worktrees").join(&worktree);
            self.entry(git, &rel, false)?;
            for file in WORKTREE_FILES {
                self.entry(git, &rel.join(file), false)?;
            }
        }
        self.modules(git, Path::new("modules"))
    }

    /// `modules/…`: each directory (a submodule, or a folder of them), its watched files
    /// and hooks, and the submodules below.
    fn modules(&mut self, git: &Path, rel: &Path) -> Result<(), String> {
        if !self.entry(git, rel, false)? {
            return Ok(());
        }
        for file in FILES {
            self.entry(git, &rel.join(file), false)?;
        }
        self.entry(git, &rel.join("hooks"), true)?;
        for child in children(&git.join(rel))? {
            let name = child.to_string_lossy();
            if MODULE_SKIP.contains(&name.as_ref()) || name == "hooks" || name == "info" {
                continue;
            }
            if std::fs::symlink_metadata(git.join(rel).join(&child)).is_ok_and(|m| m.is_dir()) {
                self.modules(git, &rel.join(child))?;
            }
        }
        Ok(())
    }

    /// Record `rel` (and, when `deep`, everything below it); whether it is a directory.
    fn entry(&mut self, git: &Path, rel: &Path, deep: bool) -> Result<bool, String> {
        let path = git.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return Ok(false);
        };
        if self.nodes.len() >= MAX_ENTRIES {
            return Err(format!("more than {MAX_ENTRIES} entries to watch"));
        }
        let mode = meta.permissions().mode() & 0o7777;
        let node = if meta.file_type().is_symlink() {
            Node::Link(std::fs::read_link(&path).map_err(|e| format!("{}: {e}", path.display()))?)
        } else if meta.is_dir() {
            Node::Dir { mode }
        } else if meta.is_file() {
            if meta.len() > MAX_FILE_BYTES {
                return Err(format!(
                    "{} is larger than {MAX_FILE_BYTES} bytes",
                    path.display()
                ));
            }
            self.bytes += meta.len();
            if self.bytes > MAX_TOTAL_BYTES {
                return Err(format!("more than {MAX_TOTAL_BYTES} bytes to watch"));
            }
            let bytes = read_regular(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            Node::File { bytes, mode }
        } else {
            // A FIFO, socket or device: recorded by kind only (never opened).
            Node::Link(PathBuf::from(format!(
                "<special {:o}>",
                meta.mode() & 0o170000
            )))
        };
        let is_dir = matches!(node, Node::Dir { .. });
        self.nodes.insert(rel.to_owned(), node);
        if deep && is_dir {
            for child in children(&path)? {
                self.entry(git, &rel.join(child), true)?;
            }
        }
        Ok(is_dir)
    }
}

/// A regular file's bytes, opened without following a link or blocking on a FIFO.
fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The names in `dir` (none when it is missing), at most [`MAX_ENTRIES`] plus one.
fn children(dir: &Path) -> Result<Vec<std::ffi::OsString>, String> {
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<_> = entries
        .flatten()
        .map(|e| e.file_name())
        .take(MAX_ENTRIES + 1)
        .collect();
    if names.len() > MAX_ENTRIES {
        return Err(format!(
            "{} holds more than {MAX_ENTRIES} entries",
            dir.display()
        ));
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
#[path = "git_state_tests.rs"]
mod tests;
