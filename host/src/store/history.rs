//! The session writer: creates a session, holds its lock, and appends commit groups to
//! `history.jsonl` with one write and one fsync per group.
//!
//! The writer keeps the records in memory and the file open for appending, so the cost of a
//! commit depends on the size of the group, never on the size of the history.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::domain::{CompactionMarker, Entry, FileShown, Item, Source, Usage};

use super::audit::read_audit_head;
use super::audit_chain::ChainHead;
use super::checksum;
use super::fsio::{self, format_ts};
use super::home::{AUDIT_FILE, HISTORY_FILE, INBOX_DIR, LOCK_FILE};
use super::inbox::{ChildReport, Inbox, Notification};
use super::lock::SessionLock;
use super::record::{
    HISTORY_FORMAT, HISTORY_MINOR, HISTORY_VERSION, Header, Record, RecordIn, RecordOut,
};
use super::scan::scan;
use super::{Home, LoadWarning, StoreError, new_session_id, validate_id};

/// What one commit wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitReceipt {
    /// The group id (0 for an empty commit, which writes nothing).
    pub group: u64,
    /// Sequence numbers of the committed records (empty for an empty commit).
    pub seqs: Range<u64>,
    /// Bytes appended to the history file.
    pub bytes: u64,
}

impl CommitReceipt {
    /// True when nothing was committed.
    pub fn is_empty(&self) -> bool {
        self.seqs.is_empty()
    }
}

/// The only writer of one session (it holds the session lock until dropped).
#[derive(Debug)]
pub struct SessionWriter {
    id: String,
    path: PathBuf,
    file: File,
    /// Bytes of the header and complete groups; a failed write is cut back to this.
    len: u64,
    header: Header,
    records: Vec<Record>,
    origins: HashSet<String>,
    inbox: Inbox,
    warnings: Vec<LoadWarning>,
    fsync: bool,
    poisoned: bool,
    lock: SessionLock,
    home: Home,
}

impl SessionWriter {
    /// Creates a session (with `id`, or a fresh sortable one) for `workspace` and opens it for
    /// writing. The session directory appears complete or not at all.
    pub fn create(home: &Home, id: Option<&str>, workspace: &Path) -> Result<Self, StoreError> {
        Self::create_with(home, id, workspace, None)
    }

    /// Creates a child session of `parent` (which must exist), with a fresh id: its header
    /// records the parent, and [`SessionWriter::report_to_parent`] queues to the parent's inbox.
    pub fn create_child(home: &Home, workspace: &Path, parent: &str) -> Result<Self, StoreError> {
        validate_id(parent)?;
        home.existing_history(parent)?;
        Self::create_with(home, None, workspace, Some(parent))
    }

    fn create_with(
        home: &Home,
        id: Option<&str>,
        workspace: &Path,
        parent: Option<&str>,
    ) -> Result<Self, StoreError> {
        let id = match id {
            Some(id) => {
                validate_id(id)?;
                id.to_owned()
            }
            None => new_session_id(),
        };
        let sessions = home.sessions_dir();
        let target = sessions.join(&id);
        if target.exists() {
            return Err(StoreError::Exists { id, path: target });
        }
        let created: Vec<PathBuf> = sessions
            .ancestors()
            .take_while(|d| !d.exists())
            .map(Path::to_owned)
            .collect();
        fs::create_dir_all(&sessions).map_err(StoreError::io("create", &sessions))?;
        for dir in created {
            if let Some(parent) = dir.parent() {
                fsio::fsync_dir(parent)?;
            }
        }

        // Build the session in a temp directory, then rename it into place.
        let tmp = sessions.join(format!(".tmp-{}", uuid::Uuid::now_v7()));
        let built = build_session_dir(&tmp, &id, workspace, parent);
        let (mut lock, header) = match built {
            Ok(b) => b,
            Err(e) => {
                let _ = fs::remove_dir_all(&tmp);
                return Err(e);
            }
        };
        if let Err(e) = fs::rename(&tmp, &target) {
            let _ = fs::remove_dir_all(&tmp);
            return Err(match e.kind() {
                io::ErrorKind::AlreadyExists | io::ErrorKind::DirectoryNotEmpty => {
                    StoreError::Exists { id, path: target }
                }
                _ => StoreError::io("rename into place", &target)(e),
            });
        }
        fsio::fsync_dir(&sessions)?;
        lock.moved_to(target.join(LOCK_FILE));

        let path = target.join(HISTORY_FILE);
        let file = open_append(&path)?;
        let len = file
            .metadata()
            .map_err(StoreError::io("stat", &path))?
            .len();
        Ok(Self {
            inbox: Inbox::of(home, &id)?,
            id,
            path,
            file,
            len,
            header,
            records: Vec::new(),
            origins: HashSet::new(),
            warnings: Vec::new(),
            fsync: true,
            poisoned: false,
            lock,
            home: home.clone(),
        })
    }

    /// Opens an existing session for writing: takes its lock, loads its records, and cuts a
    /// torn tail (reported in [`SessionWriter::warnings`]) off the file. A corrupt history is an
    /// error and is left untouched.
    pub fn open(home: &Home, id: &str) -> Result<Self, StoreError> {
        let path = home.existing_history(id)?;
        let dir = home.session_dir(id)?;
        let lock = SessionLock::acquire(dir.join(LOCK_FILE), id)?;
        let bytes = fs::read(&path).map_err(StoreError::io("read", &path))?;
        let scanned = scan::<RecordIn>(&path, &bytes)?;
        drop(bytes);
        let file = open_append(&path)?;
        let mut warnings = Vec::new();
        if let Some(torn) = scanned.torn {
            tracing::warn!(session = id, "{torn}");
            file.set_len(scanned.valid_len)
                .map_err(StoreError::io("truncate torn tail of", &path))?;
            file.sync_all().map_err(StoreError::io("fsync", &path))?;
            warnings.push(torn);
        }
        let records: Vec<Record> = scanned.records.into_iter().map(Record::from).collect();
        let origins: HashSet<String> = records.iter().filter_map(|r| r.origin.clone()).collect();
        let inbox = Inbox::of(home, id)?;
        if let Err(e) = inbox.cleanup(&origins) {
            tracing::warn!(session = id, "inbox cleanup: {e}");
        }
        Ok(Self {
            id: id.to_owned(),
            path,
            file,
            len: scanned.valid_len,
            header: scanned.header,
            records,
            origins,
            inbox,
            warnings,
            fsync: true,
            poisoned: false,
            lock,
            home: home.clone(),
        })
    }

    /// Opens session `id` if it exists, else creates it for `workspace`.
    pub fn open_or_create(home: &Home, id: &str, workspace: &Path) -> Result<Self, StoreError> {
        match Self::open(home, id) {
            Err(StoreError::NotFound { .. }) => match Self::create(home, Some(id), workspace) {
                Err(StoreError::Exists { .. }) => Self::open(home, id),
                other => other,
            },
            other => other,
        }
    }

    /// Appends `group` as one commit group: one write, one fsync. An empty group writes
    /// nothing. On error nothing of the group is in history.
    pub fn commit(&mut self, group: &[(Source, Item)]) -> Result<CommitReceipt, StoreError> {
        self.commit_parts(
            group.iter().map(|(s, i)| (s, i, None, &[][..], None, None)),
            None,
        )
    }

    /// [`SessionWriter::commit`] for entries, which may carry an origin (a notification id)
    /// and the files they show (recorded with the item). Inbox files of committed origins are
    /// deleted afterwards.
    pub fn commit_entries(&mut self, group: &[Entry]) -> Result<CommitReceipt, StoreError> {
        self.commit_parts(
            group.iter().map(|e| {
                (
                    &e.source,
                    &e.item,
                    e.origin.as_deref(),
                    e.files.as_slice(),
                    e.compaction.as_ref(),
                    e.usage.as_ref(),
                )
            }),
            None,
        )
    }

    /// Appends records read from another history as one group, keeping their timestamp (that
    /// of the first record), sources and origins; for salvaging a damaged session.
    pub(crate) fn commit_copies(&mut self, group: &[Record]) -> Result<CommitReceipt, StoreError> {
        let ts = group.first().map(|r| r.ts);
        self.commit_parts(
            group.iter().map(|r| {
                (
                    &r.source,
                    &r.item,
                    r.origin.as_deref(),
                    r.files.as_slice(),
                    r.compaction.as_ref(),
                    r.usage.as_ref(),
                )
            }),
            ts,
        )
    }

    fn commit_parts<'a, I>(
        &mut self,
        group: I,
        ts: Option<SystemTime>,
    ) -> Result<CommitReceipt, StoreError>
    where
        I: ExactSizeIterator<
                Item = (
                    &'a Source,
                    &'a Item,
                    Option<&'a str>,
                    &'a [FileShown],
                    Option<&'a CompactionMarker>,
                    Option<&'a Usage>,
                ),
            > + Clone,
    {
        if self.poisoned {
            return Err(StoreError::Poisoned {
                path: self.path.clone(),
            });
        }
        let first_seq = self.records.last().map_or(1, |r| r.seq + 1);
        let n = group.len();
        if n == 0 {
            return Ok(CommitReceipt {
                group: 0,
                seqs: first_seq..first_seq,
                bytes: 0,
            });
        }
        let group_id = self.records.last().map_or(1, |r| r.group + 1);
        let audit_head = self.audit_head();
        let now = ts.unwrap_or_else(fsio::now);
        let ts = format_ts(now);
        let mut buf = Vec::with_capacity(256 * n);
        for (i, (source, item, origin, files, compaction, usage)) in group.clone().enumerate() {
            let line = RecordOut {
                seq: first_seq + i as u64,
                group: group_id,
                source,
                ts: &ts,
                item,
                origin,
                files,
                compaction,
                usage,
                end: i + 1 == n,
                audit: audit_head.as_ref().filter(|_| i + 1 == n),
            };
            let start = buf.len();
            serde_json::to_writer(&mut buf, &line).map_err(|source| StoreError::Encode {
                path: self.path.clone(),
                source,
            })?;
            checksum::seal_from(&mut buf, start);
            buf.push(b'\n');
        }
        self.append(&buf)?;

        self.records.reserve(n);
        for (i, (source, item, origin, files, compaction, usage)) in group.enumerate() {
            if let Some(origin) = origin {
                self.origins.insert(origin.to_owned());
                // Origins that cannot name an inbox file are not notifications.
                if validate_id(origin).is_ok()
                    && let Err(e) = self.inbox.remove(origin)
                {
                    tracing::warn!(session = self.id, "{e}");
                }
            }
            self.records.push(Record {
                seq: first_seq + i as u64,
                group: group_id,
                source: source.clone(),
                ts: now,
                item: item.clone(),
                origin: origin.map(str::to_owned),
                files: files.to_vec(),
                compaction: compaction.copied(),
                usage: usage.copied(),
            });
        }
        Ok(CommitReceipt {
            group: group_id,
            seqs: first_seq..first_seq + n as u64,
            bytes: buf.len() as u64,
        })
    }

    /// The session's audit chain head now, recorded with the group being committed so that a
    /// log later cut short or rewritten disagrees with the history. `None` when the log has no
    /// chained record yet, or cannot be read (said in a warning: the group is committed
    /// without it, and `warden audit verify` reports the log).
    fn audit_head(&self) -> Option<ChainHead> {
        match read_audit_head(&self.home, &self.id) {
            Ok(head) => head,
            Err(e) => {
                tracing::warn!(session = self.id, "audit chain head not recorded: {e}");
                None
            }
        }
    }

    /// Writes and fsyncs one encoded group; on failure cuts the file back to the last
    /// complete group, or refuses further commits if that fails too.
    fn append(&mut self, buf: &[u8]) -> Result<(), StoreError> {
        if let Err(e) = self.file.write_all(buf) {
            if self.file.set_len(self.len).is_err() {
                self.poisoned = true;
            }
            return Err(write_error(&self.path, self.poisoned, e));
        }
        if self.fsync
            && let Err(e) = self.file.sync_data()
        {
            // After a failed fsync the page cache cannot be trusted to match the disk.
            self.poisoned = true;
            let _ = self.file.set_len(self.len);
            return Err(StoreError::io("fsync", &self.path)(e));
        }
        self.len += buf.len() as u64;
        Ok(())
    }

    /// Notifications queued for this session and not yet committed, in arrival order.
    pub fn pending_notifications(&self) -> Result<Vec<Notification>, StoreError> {
        let mut warnings = Vec::new();
        let pending = self.inbox.pending(&self.origins, &mut warnings)?;
        for w in warnings {
            tracing::warn!(session = self.id, "{w}");
        }
        Ok(pending)
    }

    /// Commits all pending notifications as one group, in arrival order, and returns them.
    pub fn commit_notifications(&mut self) -> Result<Vec<Notification>, StoreError> {
        let pending = self.pending_notifications()?;
        let entries: Vec<Entry> = pending.iter().map(Notification::entry).collect();
        self.commit_entries(&entries)?;
        Ok(pending)
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The history header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Queues `text` to the parent's inbox (one file, written atomically), if this is a child
    /// session; `Ok(None)` otherwise.
    pub fn report_to_parent(
        &self,
        text: &str,
        report: ChildReport,
    ) -> Result<Option<Notification>, StoreError> {
        match &self.header.parent {
            Some(parent) => Inbox::push_report(&self.home, parent, text, report).map(Some),
            None => Ok(None),
        }
    }

    /// The history file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock file this writer holds.
    pub fn lock_path(&self) -> &Path {
        self.lock.path()
    }

    /// All committed records, in order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// All committed items, in order.
    pub fn items(&self) -> impl ExactSizeIterator<Item = &Item> + '_ {
        self.records.iter().map(|r| &r.item)
    }

    /// Records the audit chain head now in the session's `audit.head`: called at a turn's
    /// end, so that the records written after its last commit are anchored outside the log.
    pub fn record_audit_head(&self) -> Result<Option<super::ChainHead>, StoreError> {
        super::record_audit_head(&self.home, &self.id)
    }

    /// What opening the session dropped (a torn tail).
    pub fn warnings(&self) -> &[LoadWarning] {
        &self.warnings
    }

    /// Turns the per-group fsync off or on. Without it a commit survives a process crash but
    /// not a power loss; for benchmarks that measure the host-side cost only.
    #[doc(hidden)]
    pub fn set_fsync_for_benchmarks(&mut self, fsync: bool) {
        self.fsync = fsync;
    }
}

/// The error of a failed append: lack of space (a full disk, the file-size limit) is told
/// apart when the rollback worked, so the person knows what to do.
fn write_error(path: &Path, poisoned: bool, e: io::Error) -> StoreError {
    let no_space = matches!(
        e.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::FileTooLarge | io::ErrorKind::QuotaExceeded
    );
    if no_space && !poisoned {
        StoreError::NoSpace {
            path: path.to_owned(),
            source: e,
        }
    } else {
        StoreError::io("write", path)(e)
    }
}

/// Fills a new session directory at `dir`: lock (taken), inbox, history header, empty audit
/// log and audit head file, all fsynced.
fn build_session_dir(
    dir: &Path,
    id: &str,
    workspace: &Path,
    parent: Option<&str>,
) -> Result<(SessionLock, Header), StoreError> {
    fs::create_dir(dir).map_err(StoreError::io("create", dir))?;
    let lock = SessionLock::acquire(dir.join(LOCK_FILE), id)?;
    let inbox = dir.join(INBOX_DIR);
    fs::create_dir(&inbox).map_err(StoreError::io("create", &inbox))?;
    let header = Header {
        format: HISTORY_FORMAT.to_owned(),
        version: u64::from(HISTORY_VERSION),
        minor: u64::from(HISTORY_MINOR),
        session: id.to_owned(),
        workspace: PathBuf::from(workspace.to_string_lossy().into_owned()),
        created: fsio::now(),
        parent: parent.map(str::to_owned),
    };
    let path = dir.join(HISTORY_FILE);
    let mut line = serde_json::to_vec(&header).map_err(|source| StoreError::Encode {
        path: path.clone(),
        source,
    })?;
    checksum::seal(&mut line);
    line.push(b'\n');
    write_synced(&path, &line)?;
    write_synced(&dir.join(AUDIT_FILE), b"")?;
    write_synced(
        &dir.join(super::audit_head_file::AUDIT_HEAD_FILE),
        &super::audit_head_file::empty(),
    )?;
    fsio::fsync_dir(dir)?;
    Ok((lock, header))
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(StoreError::io("create", path))?;
    f.write_all(bytes).map_err(StoreError::io("write", path))?;
    f.sync_all().map_err(StoreError::io("fsync", path))
}

fn open_append(path: &Path) -> Result<File, StoreError> {
    OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(StoreError::io("open", path))
}
