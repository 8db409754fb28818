//! Dev builds a session saw written. The checkpoint scan tells the front end, per tool call,
//! which files a tool, a command or an MCP server changed (`TurnEvent::FileChanged`). When one
//! is the component file of a dev build loaded by `warden plugin dev`, the session records it
//! beside the dev overlay (`config::record_written`): from then on no run or chat loads that
//! build, and the `plugin dev` watcher accepts no rebuild of it, until the person runs
//! `warden plugin dev` for it again. The person is told at once, with how to accept it.

use std::path::{Path, PathBuf};

use crate::config::{Config, PluginEntry};
use crate::domain::{Alert, Approval, AskWhy, FileChange, ToolCall, TurnEvent, TurnSink};

/// The dev builds of a configuration: each entry's name, component file and overlay.
pub(crate) struct DevBuildFiles {
    workspace: PathBuf,
    builds: Vec<(String, PathBuf, PathBuf)>,
}

impl DevBuildFiles {
    /// The dev builds among `config`'s plugins, in `workspace`.
    pub(crate) fn of(config: &Config, workspace: &Path) -> Self {
        let mut builds: Vec<(String, PathBuf, PathBuf)> = config
            .plugins
            .iter()
            .filter_map(|entry: &PluginEntry| {
                let overlay = entry.declared_in.as_deref()?;
                crate::config::is_dev_overlay(overlay)
                    .then(|| (entry.name.clone(), entry.path.clone(), overlay.to_owned()))
            })
            .collect();
        // A resolver under development, when it is the one in force.
        if let Some(overlay) = crate::config::dev_overlay_path(workspace, &crate::cli::common::env)
            && let Some(resolver) = crate::config::dev_resolver(&overlay)
            && config.fileref.resolver.as_ref() == Some(&resolver)
        {
            builds.push((crate::config::DEV_RESOLVER.to_owned(), resolver, overlay));
        }
        Self {
            workspace: workspace.to_owned(),
            builds,
        }
    }

    /// `sink`, told of each dev build a change wrote as well as of every event.
    pub(crate) fn watching<'a>(&'a self, sink: &'a mut dyn TurnSink) -> Watching<'a> {
        Watching { files: self, sink }
    }

    /// Record each dev build `change` wrote; the alert to show for each.
    fn saw(&self, change: &FileChange) -> Vec<Alert> {
        // The name's exact bytes (a name that is not UTF-8 is carried in `path_hex`).
        let name = crate::domain::file_name::decode(&change.path, change.path_hex.as_deref())
            .unwrap_or_else(|_| change.path.clone().into());
        let changed = self.workspace.join(name);
        self.builds
            .iter()
            .filter(|(_, file, _)| same_file(&changed, file))
            .map(|(name, file, overlay)| {
                let source = format!("plugin:{name}");
                match crate::config::record_written(overlay, name) {
                    Ok(()) => Alert::warn(
                        source,
                        format!(
                            "{} (the dev build of `warden plugin dev`) was written by `{}`: it is not loaded again until you accept it with `warden plugin dev {}`",
                            file.display(),
                            change.tool,
                            file.display()
                        ),
                    ),
                    Err(err) => Alert::error(
                        source,
                        format!(
                            "{} (the dev build of `warden plugin dev`) was written by `{}`, and that could not be recorded in {}: {err}; end it with `warden plugin dev --stop --name {name}`",
                            file.display(),
                            change.tool,
                            crate::config::written_path(overlay).display()
                        ),
                    ),
                }
            })
            .collect()
    }
}

/// Whether `a` and `b` name the same file: the same path, or the same name in the same
/// directory once links are resolved (the file itself may be gone).
fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    let real = |p: &Path| -> Option<PathBuf> {
        Some(
            std::fs::canonicalize(p.parent()?)
                .ok()?
                .join(p.file_name()?),
        )
    };
    matches!((real(a), real(b)), (Some(x), Some(y)) if x == y)
}

/// A sink that records the dev builds a turn's changes wrote, then passes every event on.
pub(crate) struct Watching<'a> {
    files: &'a DevBuildFiles,
    sink: &'a mut dyn TurnSink,
}

impl TurnSink for Watching<'_> {
    fn event(&mut self, event: &TurnEvent) {
        self.sink.event(event);
        if let TurnEvent::FileChanged(change) = event {
            for alert in self.files.saw(change) {
                self.sink.event(&TurnEvent::Alert(alert));
            }
        }
    }

    fn approve_tool(&mut self, call: &ToolCall, why: &AskWhy) -> Approval {
        self.sink.approve_tool(call, why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ChangeKind, CollectingSink};

    fn change(path: &str) -> FileChange {
        FileChange {
            call_id: "c1".into(),
            tool: "shell".into(),
            path: path.into(),
            path_hex: None,
            kind: ChangeKind::Modified,
            added: 0,
            removed: 0,
            diff: String::new(),
            diff_cut: false,
        }
    }

    #[test]
    fn a_change_to_a_dev_build_is_recorded_and_said_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(workspace.join("build")).unwrap();
        let overlay = dir.path().join("plugin-dev/k.toml");
        std::fs::create_dir_all(overlay.parent().unwrap()).unwrap();
        let files = DevBuildFiles {
            workspace: workspace.clone(),
            builds: vec![(
                "probe".into(),
                workspace.join("build/probe.wasm"),
                overlay.clone(),
            )],
        };
        let mut sink = CollectingSink::default();
        files
            .watching(&mut sink)
            .event(&TurnEvent::FileChanged(change("build/other.wasm")));
        assert!(sink.alerts.is_empty());
        assert!(!crate::config::written_in_session(&overlay, "probe"));
        // Through a path that names the same file another way.
        files
            .watching(&mut sink)
            .event(&TurnEvent::FileChanged(change("build/../build/probe.wasm")));
        assert!(crate::config::written_in_session(&overlay, "probe"));
        assert_eq!(sink.alerts.len(), 1);
        assert_eq!(sink.alerts[0].source, "plugin:probe");
        assert!(
            sink.alerts[0]
                .message
                .contains("was written by `shell`: it is not loaded again"),
            "{}",
            sink.alerts[0].message
        );
    }
}
