//! The chat's worker: the standard assembly (`front::assemble`), with every plugin wrapped so
//! that `/plugins` can show its calls and failures, and dev builds swapped in when rebuilt.

use std::path::Path;
use std::sync::Arc;

use super::counted::{CountedHook, CountedInterceptor, CountedTool, Counters, PluginRow};
use super::dev_reload::DevBuilds;
use crate::cli::exit::CliError;
use crate::config::{Config, PluginEntry};
use crate::domain::{Hook, Tool};
use crate::front::assemble::Wrap;
use crate::mcp::ServerRow;
use crate::plugin::PluginEngine;
use crate::store::Home;
use crate::worker::{ChainEntry, Worker};

/// What the chat is made of: its worker, the `/plugins` rows, the `/mcp` rows, and the dev
/// builds it reloads when they are rebuilt.
pub(crate) struct Assembled {
    pub worker: Worker,
    pub plugins: Vec<PluginRow>,
    pub mcp: Vec<ServerRow>,
    pub dev: DevBuilds,
}

/// Counts each plugin's calls and swaps in dev builds.
struct ChatWrap {
    rows: Vec<PluginRow>,
    counters: Option<Arc<Counters>>,
    dev: DevBuilds,
}

impl ChatWrap {
    fn counters(&self) -> Arc<Counters> {
        self.counters.clone().unwrap_or_default()
    }
}

impl Wrap for ChatWrap {
    fn entry(&mut self, entry: &PluginEntry) {
        let (row, counters) = PluginRow::new(entry);
        self.rows.push(row);
        self.counters = Some(counters);
    }

    fn interceptor(&mut self, entry: &PluginEntry, mut loaded: ChainEntry) -> ChainEntry {
        if self.dev.is_dev(entry) {
            loaded = self.dev.interceptor(entry, loaded);
        }
        CountedInterceptor::wrap(loaded, self.counters())
    }

    fn hook(&mut self, entry: &PluginEntry, mut loaded: Box<dyn Hook>) -> Box<dyn Hook> {
        if self.dev.is_dev(entry) {
            loaded = self.dev.hook(entry, loaded);
        }
        CountedHook::wrap(loaded, self.counters())
    }

    fn tools(
        &mut self,
        entry: &PluginEntry,
        mut loaded: Vec<Box<dyn Tool + Send>>,
    ) -> Vec<Box<dyn Tool + Send>> {
        if self.dev.is_dev(entry) {
            loaded = self.dev.tools(entry, loaded);
        }
        let counters = self.counters();
        loaded
            .into_iter()
            .map(|tool| CountedTool::wrap(tool, Arc::clone(&counters)))
            .collect()
    }

    fn engine(&mut self, engine: PluginEngine) {
        self.dev.keep_engine(engine);
    }
}

/// A worker on `session` (a new session when `None`), with its rows and dev builds.
pub(crate) fn assemble(
    config: &Config,
    workspace: &Path,
    home: &Home,
    session: Option<&str>,
) -> Result<Assembled, CliError> {
    let mut wrap = ChatWrap {
        rows: Vec::new(),
        counters: None,
        dev: DevBuilds::new(config, workspace),
    };
    let assembled = crate::front::assemble::assemble(config, workspace, home, session, &mut wrap)?;
    Ok(Assembled {
        worker: assembled.worker,
        plugins: wrap.rows,
        mcp: assembled.mcp,
        dev: wrap.dev,
    })
}
