//! A resolver that serves files under the same rules as warden's built-in one, and replaces
//! every line containing one of its secret patterns by `[REDACTED]` before anything leaves the
//! sandbox.
//!
//! Config (`fileref.resolver_config`): `patterns`, newline-separated substrings, matched
//! case-insensitively (default: a few common secret markers); `marker`, the replacement line
//! (default `[REDACTED]`). The host's keys (`roots`, `deny`, `max_entries`) configure the
//! underlying workspace as for the built-in resolver.

use file_ref::{Settings, Workspace};
use warden_plugin::Config;
use warden_plugin::resolver::{FileChunk, FileRef, Listing, ResolveError, Resolved, Resolver};

/// Patterns used when the config names none.
const DEFAULT_PATTERNS: &[&str] = &[
    "password",
    "secret",
    "api_key",
    "apikey",
    "token",
    "private key",
    "aws_access_key_id",
    "aws_secret_access_key",
];

struct Redacting {
    workspace: Workspace,
    patterns: Vec<String>,
    marker: String,
}

impl Redacting {
    /// `text` with every line that matches a pattern replaced by the marker; line count and
    /// line endings are kept, so line numbers stay right.
    fn mask(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let lower = line.to_lowercase();
            if self.patterns.iter().any(|p| lower.contains(p.as_str())) {
                out.push_str(&self.marker);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            } else {
                out.push_str(line);
            }
        }
        out
    }
}

impl Resolver for Redacting {
    fn init(config: Config) -> Result<Self, String> {
        let workspace = Workspace::new(Settings::from_config(&config)?)?;
        let patterns: Vec<String> = match config.get("patterns") {
            Some(raw) => raw
                .lines()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_lowercase)
                .collect(),
            None => DEFAULT_PATTERNS.iter().map(|p| (*p).to_owned()).collect(),
        };
        if patterns.is_empty() {
            return Err("config key `patterns` names no pattern".to_owned());
        }
        let marker = config.get("marker").unwrap_or("[REDACTED]").to_owned();
        warden_plugin::info!("redacting {} pattern(s)", patterns.len());
        Ok(Self {
            workspace,
            patterns,
            marker,
        })
    }

    fn resolve(&mut self, request: FileRef) -> Result<Resolved, ResolveError> {
        let mut resolved =
            self.workspace
                .resolve(&request.path, request.range, request.max_bytes)?;
        if resolved.kind == warden_plugin::EntryKind::File {
            resolved.content = self.mask(&resolved.content);
        }
        Ok(resolved)
    }

    fn read_file(
        &mut self,
        path: String,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        let mut chunk = self.workspace.read_file(&path, offset, limit, max_bytes)?;
        chunk.content = self.mask(&chunk.content);
        Ok(chunk)
    }

    fn list_files(&mut self, path: String, max_entries: u32) -> Result<Listing, ResolveError> {
        self.workspace.list_files(&path, max_entries)
    }
}

warden_plugin::export_resolver!(Redacting);
