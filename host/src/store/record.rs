//! The lines of `history.jsonl`: the [`Header`], one [`Record`] per committed item, and the
//! serde shapes they take on disk.

use std::path::PathBuf;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::domain::{CompactionMarker, FileShown, Item, Source, Usage};

use super::fsio::rfc3339;

/// The `format` value of a history header.
pub const HISTORY_FORMAT: &str = "warden-history";
/// The history format version this build reads and writes.
pub const HISTORY_VERSION: u32 = 1;
/// The minor version this build writes: 1 means every line carries a checksum (`sum`); 2 adds
/// that every record of the session's audit log is chained and that the last record of each
/// commit group carries the audit chain head at its commit (`audit`); from 3, the session
/// directory also keeps the head at each turn's end in `audit.head`. Files of minor versions 0
/// (no checksums) and 1 are read too; a build that knows only an earlier minor version reads
/// later ones as well, ignoring what it does not know.
pub const HISTORY_MINOR: u32 = 3;

/// First line of `history.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`HISTORY_FORMAT`].
    pub format: String,
    /// Always [`HISTORY_VERSION`] for files this build accepts.
    pub version: u64,
    /// 0 (absent) for files written before checksums, 1 for files whose every line carries one,
    /// 2 for files that also record the audit chain head at each commit, 3 ([`HISTORY_MINOR`])
    /// for sessions that also keep `audit.head`, the head at each turn's end.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub minor: u64,
    /// The session id.
    pub session: String,
    /// The workspace the session was started in.
    pub workspace: PathBuf,
    /// When the session was created.
    #[serde(with = "rfc3339")]
    pub created: SystemTime,
    /// The session this one reports to (`warden run --parent`); absent in other sessions and
    /// in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Just enough of a header to decide whether this build reads the file.
#[derive(Deserialize)]
pub(crate) struct HeaderProbe {
    pub(crate) format: String,
    pub(crate) version: u64,
}

/// One committed item as read back from history.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Position in the session, from 1, contiguous.
    pub seq: u64,
    /// Commit group, from 1, contiguous; all items of one commit share it.
    pub group: u64,
    /// Who produced the item.
    pub source: Source,
    /// When its group was committed.
    pub ts: SystemTime,
    /// The item.
    pub item: Item,
    /// Id of what the item was made from (a notification id), if any.
    pub origin: Option<String>,
    /// Files whose content the item shows (absent in records written before it existed).
    pub files: Vec<FileShown>,
    /// On the marker of a compaction group: the range it replaces.
    pub compaction: Option<CompactionMarker>,
    /// On a model answer: the tokens it took (absent in records written before it existed).
    pub usage: Option<Usage>,
}

/// What a model request is built from: the records after the latest compaction marker (all
/// records when the session was never compacted). The marker itself is not sent.
pub fn as_sent(records: &[Record]) -> &[Record] {
    match records.iter().rposition(|r| r.compaction.is_some()) {
        Some(i) => &records[i + 1..],
        None => records,
    }
}

/// A record line as written.
#[derive(Serialize)]
pub(crate) struct RecordOut<'a> {
    pub(crate) seq: u64,
    pub(crate) group: u64,
    pub(crate) source: &'a Source,
    pub(crate) ts: &'a str,
    pub(crate) item: &'a Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<&'a str>,
    #[serde(skip_serializing_if = "<[FileShown]>::is_empty")]
    pub(crate) files: &'a [FileShown],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) compaction: Option<&'a CompactionMarker>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<&'a Usage>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) end: bool,
    /// On a group's last record: the session's audit chain head when the group was committed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) audit: Option<&'a super::ChainHead>,
}

/// The fields of a record line that the group and sequence checks need.
pub(crate) trait Framing {
    /// Sequence number.
    fn seq(&self) -> u64;
    /// Commit group id.
    fn group(&self) -> u64;
    /// True on the last record of a group.
    fn end(&self) -> bool;
}

/// A full record line as read.
#[derive(Deserialize)]
pub(crate) struct RecordIn {
    seq: u64,
    group: u64,
    source: Source,
    #[serde(with = "rfc3339")]
    ts: SystemTime,
    item: Item,
    #[serde(default)]
    origin: Option<String>,
    #[serde(default)]
    files: Vec<FileShown>,
    #[serde(default)]
    compaction: Option<CompactionMarker>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    end: bool,
}

impl Framing for RecordIn {
    fn seq(&self) -> u64 {
        self.seq
    }
    fn group(&self) -> u64 {
        self.group
    }
    fn end(&self) -> bool {
        self.end
    }
}

impl From<RecordIn> for Record {
    fn from(r: RecordIn) -> Self {
        Self {
            seq: r.seq,
            group: r.group,
            source: r.source,
            ts: r.ts,
            item: r.item,
            origin: r.origin,
            files: r.files,
            compaction: r.compaction,
            usage: r.usage,
        }
    }
}

/// A record line read for counting only: the item is checked to be JSON but not decoded.
#[derive(Deserialize)]
pub(crate) struct RecordSkim {
    seq: u64,
    group: u64,
    #[serde(rename = "item")]
    _item: serde::de::IgnoredAny,
    #[serde(default)]
    end: bool,
}

impl Framing for RecordSkim {
    fn seq(&self) -> u64 {
        self.seq
    }
    fn group(&self) -> u64 {
        self.group
    }
    fn end(&self) -> bool {
        self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_line_shape_is_stable() -> Result<(), serde_json::Error> {
        let item = Item::system("hi");
        let line = serde_json::to_string(&RecordOut {
            seq: 3,
            group: 2,
            source: &Source::Notify,
            ts: "2025-01-02T03:04:05.678Z",
            item: &item,
            origin: Some("n1"),
            files: &[],
            compaction: None,
            usage: None,
            end: true,
            audit: None,
        })?;
        assert_eq!(
            line,
            r#"{"seq":3,"group":2,"source":"notify","ts":"2025-01-02T03:04:05.678Z","item":{"role":"system","text":"hi"},"origin":"n1","end":true}"#
        );
        let back: RecordIn = serde_json::from_str(&line)?;
        let back = Record::from(back);
        assert_eq!(back.item, item);
        assert_eq!(back.origin.as_deref(), Some("n1"));
        assert_eq!(back.usage, None);
        Ok(())
    }

    #[test]
    fn an_answer_record_carries_its_usage_and_old_lines_load_without() -> serde_json::Result<()> {
        let item = Item::assistant("hi");
        let usage = Usage {
            input_tokens: 12,
            output_tokens: 3,
            cache_read_tokens: 100,
            cache_write_tokens: 0,
        };
        let line = serde_json::to_string(&RecordOut {
            seq: 4,
            group: 3,
            source: &Source::Provider,
            ts: "2025-01-02T03:04:05.678Z",
            item: &item,
            origin: None,
            files: &[],
            compaction: None,
            usage: Some(&usage),
            end: true,
            audit: None,
        })?;
        assert!(
            line.contains(
                r#""usage":{"input_tokens":12,"output_tokens":3,"cache_read_tokens":100}"#
            ),
            "{line}"
        );
        let back = Record::from(serde_json::from_str::<RecordIn>(&line)?);
        assert_eq!(back.usage, Some(usage));
        let old = r#"{"seq":4,"group":3,"source":"provider","ts":"2025-01-02T03:04:05.678Z","item":{"role":"assistant","text":"hi"},"end":true}"#;
        let back = Record::from(serde_json::from_str::<RecordIn>(old)?);
        assert_eq!((back.item, back.usage), (item, None));
        Ok(())
    }
}
