//! What the sandbox refused a command, as the launcher's parent half saw it: connects and name
//! lookups the empty network (or the per-host proxy's rule) stopped, and writes by name to a
//! read-only `.git`/`.warden`, a hidden path, or outside the roots — only those the kernel
//! refused: a written name whose state changed after the write was seen is dropped
//! ([`Seen`]). The launcher writes it as
//! one JSON line back on its standard input (a socket the `shell` tool holds) after the
//! command ends; the tool turns it into the one line that ends a failed command's result,
//! naming the rule and the escalation that would allow it ([`SandboxReport::explain`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::relevance::{points_at_network, points_at_write};
use crate::domain::EscalationKind;

/// Most entries kept of each kind.
const MAX_EACH: usize = 8;

/// What the sandbox refused one command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SandboxReport {
    /// Destinations (`address:port`) a connect to was refused or had no route.
    pub connects: Vec<String>,
    /// Name servers (`address:port`) a lookup was sent to, with no network.
    pub lookups: Vec<String>,
    /// Writes under a read-only `.git` or `.warden`.
    pub read_only: Vec<PathBuf>,
    /// Writes to a hidden path.
    pub hidden: Vec<PathBuf>,
    /// Writes outside the workspace roots and the private temporary directory.
    pub outside: Vec<PathBuf>,
}

/// Where a written name falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Somewhere writable (nothing to report).
    Writable,
    ReadOnly,
    Hidden,
    Outside,
}

/// The paths a sandbox treats differently, to place a written name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Places {
    pub(crate) read_only: Vec<PathBuf>,
    pub(crate) hidden: Vec<PathBuf>,
    /// The roots and the private temporary directory.
    pub(crate) writable: Vec<PathBuf>,
}

impl Places {
    /// Where `path` (absolute, as the caller named it) falls; devices and `/proc` count as
    /// writable (their own rules apply).
    pub(crate) fn place(&self, path: &Path) -> Place {
        let under = |list: &[PathBuf]| list.iter().any(|p| path.starts_with(p));
        if under(&self.read_only) {
            Place::ReadOnly
        } else if under(&self.hidden) {
            Place::Hidden
        } else if under(&self.writable)
            || ["/dev", "/proc", "/sys"]
                .iter()
                .any(|p| path.starts_with(p))
        {
            Place::Writable
        } else {
            Place::Outside
        }
    }
}

/// Most written paths whose state is kept to check after the command.
const MAX_SEEN: usize = 64;

/// One file's state as `lstat` gives it, or its absence: what a write the kernel lets
/// through changes (the size, the times, the inode of a replaced name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileState {
    dev: u64,
    ino: u64,
    mode: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileState {
    fn of(path: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(path).ok()?;
        Some(Self {
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }
}

/// A written name's state, taken when the write was seen (before the kernel made it): a name
/// created, removed, replaced by a rename or written changes it. (Its directory is not
/// compared: a sibling created beside it changes that too.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp(Option<FileState>);

impl Stamp {
    fn of(path: &Path) -> Self {
        Self(FileState::of(path))
    }
}

/// The written names that fall outside the writable places, each with its state when the
/// write was seen; after the command, a name whose state changed was written: the kernel did
/// not refuse it, and the report does not say it did ([`SandboxReport::keep_refused`]).
#[derive(Debug, Default)]
pub(crate) struct Seen {
    stamps: Vec<(PathBuf, Stamp)>,
}

impl Seen {
    /// Note the state of `path`, about to be written at `place` (the first write of a name
    /// counts).
    pub(crate) fn note(&mut self, path: &Path, place: Place) {
        if place == Place::Writable
            || self.stamps.len() >= MAX_SEEN
            || self.stamps.iter().any(|(p, _)| p == path)
        {
            return;
        }
        self.stamps.push((path.to_path_buf(), Stamp::of(path)));
    }

    /// Whether `path` was noted and has changed since.
    fn changed(&self, path: &Path) -> bool {
        self.stamps
            .iter()
            .any(|(p, stamp)| p == path && Stamp::of(p) != *stamp)
    }
}

fn push<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if list.len() < MAX_EACH && !list.contains(&item) {
        list.push(item);
    }
}

impl SandboxReport {
    /// Record a write to `path`, placed at `place`.
    pub(crate) fn wrote(&mut self, path: PathBuf, place: Place) {
        match place {
            Place::Writable => {}
            Place::ReadOnly => push(&mut self.read_only, path),
            Place::Hidden => push(&mut self.hidden, path),
            Place::Outside => push(&mut self.outside, path),
        }
    }

    /// Keep only the writes the kernel refused: a read-only or outside path that changed
    /// after its write was seen was written, whatever the place says. (A hidden path is
    /// covered in the launcher's view too, and a write to a covered file reaches the cover,
    /// never the file: those entries stay, and their line says the write did not reach the
    /// file rather than that it was refused.)
    pub(crate) fn keep_refused(&mut self, seen: &Seen) {
        self.read_only.retain(|p| !seen.changed(p));
        self.outside.retain(|p| !seen.changed(p));
    }

    /// Record a connect to `destination` the network refused (a lookup when `lookup`).
    pub(crate) fn connected(&mut self, destination: String, lookup: bool) {
        if lookup {
            push(&mut self.lookups, destination);
        } else {
            push(&mut self.connects, destination);
        }
    }

    /// Nothing refused.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Only the refusals the command's `output` points at (it names the path or address, or
    /// reports a permission or network error): the others did not make it fail.
    pub fn pointed_at(&self, output: &str) -> Self {
        let writes = |list: &[PathBuf]| -> Vec<PathBuf> {
            list.iter()
                .filter(|p| points_at_write(output, p))
                .cloned()
                .collect()
        };
        let net = |list: &[String]| -> Vec<String> {
            list.iter()
                .filter(|d| points_at_network(output, d))
                .cloned()
                .collect()
        };
        Self {
            connects: net(&self.connects),
            lookups: net(&self.lookups),
            read_only: writes(&self.read_only),
            hidden: writes(&self.hidden),
            outside: writes(&self.outside),
        }
    }

    /// The one line that ends a failed command's result: of the refusals its `output` points
    /// at, the sandbox rule it met first (the network, then a read-only `.git`/`.warden`, then
    /// a hidden path, then a path outside the roots) and the escalation that would allow it,
    /// when the policy allows that one (`escalations`). `None` when nothing the output points
    /// at was refused.
    pub fn explain(
        &self,
        hosts_granted: bool,
        output: &str,
        escalations: &[EscalationKind],
    ) -> Option<String> {
        self.pointed_at(output)
            .explain_all(hosts_granted, escalations)
    }

    fn explain_all(&self, hosts_granted: bool, escalations: &[EscalationKind]) -> Option<String> {
        let how = |kind: EscalationKind| {
            if escalations.contains(&kind) {
                format!(
                    "if the task needs it, call `shell` again with `\"escalate\": {{\"kind\": \"{kind}\", \"reason\": \"…\"}}` (the person is asked)"
                )
            } else {
                format!(
                    "the policy allows no `{kind}` escalation: if the task needs it, say so and the person can run it"
                )
            }
        };
        let shown = |list: &[PathBuf]| {
            list.iter()
                .take(2)
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !self.connects.is_empty() || !self.lookups.is_empty() {
            let mut what = Vec::new();
            if !self.lookups.is_empty() {
                what.push(format!(
                    "a name lookup (to {}) found no network",
                    self.lookups.join(", ")
                ));
            }
            if !self.connects.is_empty() {
                what.push(format!(
                    "a connect to {} was refused",
                    self.connects.join(", ")
                ));
            }
            let rule = if hosts_granted {
                "this sandbox reaches only its allowed hosts, through the proxy in $HTTPS_PROXY"
            } else {
                "this sandbox has no network"
            };
            return Some(format!(
                "[sandbox: {rule}: {}; {} (add \"hosts\" to name only the hosts needed)]",
                what.join("; "),
                how(EscalationKind::Network)
            ));
        }
        if !self.read_only.is_empty() {
            let git = self
                .read_only
                .iter()
                .any(|p| p.components().any(|c| c.as_os_str() == ".git"));
            let fix = if git {
                how(EscalationKind::Git)
            } else {
                "`.warden` holds warden's own configuration: change it yourself, outside the agent"
                    .to_owned()
            };
            return Some(format!(
                "[sandbox: `.git` and `.warden` are read-only in this sandbox: a write to {} was refused; {fix}]",
                shown(&self.read_only)
            ));
        }
        if !self.hidden.is_empty() {
            let reach = if escalations.contains(&EscalationKind::Unsandboxed) {
                "no escalation short of `unsandboxed` reaches it"
            } else {
                "no escalation the policy allows reaches it"
            };
            return Some(format!(
                "[sandbox: {} is hidden from sandboxed commands (credentials and denied files): the write did not reach it (a hidden directory is read-only, a hidden file's writes are discarded); {reach}]",
                shown(&self.hidden)
            ));
        }
        if !self.outside.is_empty() {
            return Some(format!(
                "[sandbox: writes are allowed only in the workspace and $TMPDIR: a write to {} was refused; point the tool at the workspace or $TMPDIR, or {}]",
                shown(&self.outside),
                how(EscalationKind::Unsandboxed)
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output that points at every refusal (a permission error, a network error).
    const ALL_FAILED: &str = "Permission denied; could not resolve host";
    const ALL: &[EscalationKind] = &[
        EscalationKind::Network,
        EscalationKind::Git,
        EscalationKind::Unsandboxed,
    ];

    #[test]
    fn only_what_the_output_points_at_is_named_and_only_allowed_escalations_offered() {
        let mut report = SandboxReport::default();
        report.wrote("/home/u/.cargo/.package-cache".into(), Place::Outside);
        let failed_test = "test adds ... FAILED\nassertion `left == right` failed\n";
        assert_eq!(report.explain(false, failed_test, ALL), None);
        let named = "error: cannot open /home/u/.cargo/.package-cache";
        let line = report
            .explain(
                false,
                named,
                &[EscalationKind::Network, EscalationKind::Git],
            )
            .unwrap_or_default();
        assert!(line.contains(".package-cache"), "{line}");
        assert!(!line.contains("\"unsandboxed\""), "{line}");
        assert!(
            line.contains("allows no `unsandboxed` escalation"),
            "{line}"
        );
    }

    /// A write the kernel let through (the name created, or the file changed) is not reported
    /// as refused; one that left the file and its directory as they were still is.
    #[test]
    fn a_write_that_changed_the_file_is_not_reported_as_refused() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("hooks")).unwrap();
        std::fs::write(git.join("config"), "[core]\n").unwrap();
        let hook = git.join("hooks/pre-commit");
        let config = git.join("config");
        let refused = git.join("hooks/refused");
        let mut seen = Seen::default();
        let mut report = SandboxReport::default();
        for path in [&hook, &config, &refused] {
            seen.note(path, Place::ReadOnly);
            report.wrote(path.clone(), Place::ReadOnly);
        }
        std::fs::write(&hook, "#!/bin/sh\n").unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&config)
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"\tfsmonitor = x\n"))
            .unwrap();
        report.keep_refused(&seen);
        assert_eq!(report.read_only, vec![refused.clone()]);
        let line = report.explain(false, ALL_FAILED, ALL).unwrap_or_default();
        assert!(
            !line.contains("pre-commit") && !line.contains("config") && line.contains("refused"),
            "{line}"
        );
        let mut none_refused = SandboxReport::default();
        let mut seen = Seen::default();
        let outside = dir.path().join("elsewhere");
        seen.note(&outside, Place::Outside);
        none_refused.wrote(outside.clone(), Place::Outside);
        std::fs::write(&outside, "x").unwrap();
        none_refused.keep_refused(&seen);
        assert_eq!(none_refused.explain(false, ALL_FAILED, ALL), None);
    }

    #[test]
    fn each_rule_names_its_escalation_and_nothing_refused_says_nothing() {
        assert_eq!(
            SandboxReport::default().explain(false, ALL_FAILED, ALL),
            None
        );
        let mut net = SandboxReport::default();
        net.connected("10.0.0.53:53".into(), true);
        let line = net.explain(false, ALL_FAILED, ALL).unwrap_or_default();
        assert!(
            line.contains("no network") && line.contains("\"kind\": \"network\""),
            "{line}"
        );
        let places = Places {
            read_only: vec!["/w/.git".into(), "/w/.warden".into()],
            hidden: vec!["/home/u/.ssh".into()],
            writable: vec!["/w".into(), "/tmp/x".into()],
        };
        assert_eq!(places.place(Path::new("/w/src/a.rs")), Place::Writable);
        assert_eq!(places.place(Path::new("/dev/null")), Place::Writable);
        assert_eq!(places.place(Path::new("/home/u/.ssh/k")), Place::Hidden);
        assert_eq!(places.place(Path::new("/home/u/.cargo/x")), Place::Outside);
        let mut git = SandboxReport::default();
        git.wrote(
            "/w/.git/index.lock".into(),
            places.place(Path::new("/w/.git/index.lock")),
        );
        git.wrote("/w/a".into(), Place::Writable);
        let line = git.explain(false, ALL_FAILED, ALL).unwrap_or_default();
        assert!(
            line.contains("/w/.git/index.lock") && line.contains("\"git\""),
            "{line}"
        );
        let mut warden = SandboxReport::default();
        warden.wrote("/w/.warden/config.toml".into(), Place::ReadOnly);
        assert!(
            !warden
                .explain(false, ALL_FAILED, ALL)
                .unwrap_or_default()
                .contains("\"git\"")
        );
        let mut outside = SandboxReport::default();
        outside.wrote("/home/u/.cargo/x".into(), Place::Outside);
        assert!(
            outside
                .explain(false, ALL_FAILED, ALL)
                .unwrap_or_default()
                .contains("unsandboxed")
        );
    }
}
