//! The data of one plugin's store: its WASI context (granting nothing by default), resource
//! table, memory limits, log budget and name. Each version's `host` interface (in `wit/`)
//! ends in [`PluginState::guest_log`].

use wasmtime::component::ResourceTable;
use wasmtime::{StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::fs_guard::{FsGuard, GuardedFs};
use super::limits::Limits;
use super::stderr::TailPipe;

/// Makes the WASI context of each fresh instance, with the guard of its filesystem when it
/// has one (see [`super::fs_guard`]).
pub(crate) type WasiFactory = Box<dyn Fn(TailPipe) -> (WasiCtx, Option<FsGuard>) + Send>;

/// Store data of one plugin instance.
pub(crate) struct PluginState {
    pub(crate) name: String,
    /// What the plugin may still log.
    pub(crate) logs: LogBudget,
    wasi: WasiCtx,
    table: ResourceTable,
    /// Checks on the real paths of what the plugin opens (none for an unguarded plugin).
    fs_guard: Option<FsGuard>,
    pub(crate) limits: StoreLimits,
    /// Outgoing HTTP of a tool plugin: its allowed hosts and this call's figures (refuses
    /// everything for other plugins).
    pub(crate) outgoing: super::outgoing::Outgoing,
    /// The prompt lent to an interceptor's `on-prompt-submit` (WIT 0.3.0).
    pub(crate) lent: super::lent::LentPrompt,
}

impl PluginState {
    /// State with the given WASI context, filesystem guard and limits.
    pub(crate) fn new(
        name: &str,
        wasi: WasiCtx,
        fs_guard: Option<FsGuard>,
        limits: &Limits,
    ) -> Self {
        Self {
            name: name.to_owned(),
            logs: LogBudget::default(),
            wasi,
            table: ResourceTable::new(),
            fs_guard,
            limits: StoreLimitsBuilder::new()
                .memory_size(limits.memory_bytes)
                .instances(64)
                .tables(64)
                .memories(8)
                .trap_on_grow_failure(true)
                .build(),
            outgoing: super::outgoing::Outgoing::default(),
            lent: super::lent::LentPrompt::default(),
        }
    }

    /// A plugin call starts: a fresh log budget for the call, and the first refusal of the
    /// filesystem guard is logged again.
    pub(crate) fn new_call(&mut self) {
        self.logs.new_call();
        if let Some(guard) = self.fs_guard.as_mut() {
            guard.new_call();
        }
    }

    /// The filesystem as `wasi:filesystem/types` serves it: wasmtime's, behind the guard.
    pub(crate) fn guarded_fs(&mut self) -> GuardedFs<'_> {
        GuardedFs {
            fs: wasmtime_wasi::filesystem::WasiFilesystemCtxView {
                ctx: self.wasi.filesystem(),
                table: &mut self.table,
            },
            guard: self.fs_guard.as_mut(),
        }
    }
}

/// A WASI context that grants nothing: no filesystem, network, environment, arguments or
/// inherited stdio. Clocks and randomness stay available (std needs them).
pub(crate) fn closed_wasi() -> wasmtime_wasi::WasiCtxBuilder {
    let mut builder = wasmtime_wasi::WasiCtxBuilder::new();
    builder
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false)
        .socket_addr_check(|_, _| Box::pin(async { false }))
        .env(GUEST_LOG_LEVEL_VARIABLE, guest_log_level());
    builder
}

/// The variable that tells a guest the least severe level of its log lines the host records,
/// so that the SDK neither formats nor sends the others (each line is a call into the host).
pub(crate) const GUEST_LOG_LEVEL_VARIABLE: &str = crate::config::GUEST_LOG_LEVEL_ENV;

/// The least severe level recorded for guest lines (target `warden::plugin::guest`) by the
/// subscriber in force: `trace` … `error`, or `off`.
pub(crate) fn guest_log_level() -> &'static str {
    use tracing::Level;
    if tracing::enabled!(target: "warden::plugin::guest", Level::TRACE) {
        "trace"
    } else if tracing::enabled!(target: "warden::plugin::guest", Level::DEBUG) {
        "debug"
    } else if tracing::enabled!(target: "warden::plugin::guest", Level::INFO) {
        "info"
    } else if tracing::enabled!(target: "warden::plugin::guest", Level::WARN) {
        "warn"
    } else if tracing::enabled!(target: "warden::plugin::guest", Level::ERROR) {
        "error"
    } else {
        "off"
    }
}

/// The WASI factory of interceptors and hooks: [`closed_wasi`] with stderr captured.
pub(crate) fn no_capabilities() -> WasiFactory {
    Box::new(|stderr| {
        let mut wasi = closed_wasi();
        wasi.stderr(stderr);
        (wasi.build(), None)
    })
}

impl WasiView for PluginState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_budget_per_call_and_per_turn() {
        let mut b = LogBudget::default();
        assert_eq!(b.take(LOG_BYTES_PER_CALL), Ok(()));
        assert_eq!(b.take(1), Err(true));
        assert_eq!(b.take(1), Err(false));
        for _ in 0..3 {
            b.new_call();
            assert_eq!(b.take(LOG_BYTES_PER_CALL), Ok(()));
        }
        b.new_call();
        assert_eq!(b.take(1), Err(true), "the turn's budget is spent");
        b.new_turn();
        assert_eq!(b.take(1), Ok(()));
    }
}

/// Longest guest log line kept; the rest is cut so a plugin cannot flood the log.
const MAX_LOG_LINE: usize = 4096;
/// Bytes of log lines one call may write.
pub(crate) const LOG_BYTES_PER_CALL: usize = 16 << 10;
/// Bytes of log lines one plugin may write in one turn.
pub(crate) const LOG_BYTES_PER_TURN: usize = 64 << 10;

/// A plugin's log budget: bytes left in this call and in this turn. Once either is spent,
/// further lines are dropped, and one note says so.
#[derive(Debug)]
pub(crate) struct LogBudget {
    call: usize,
    turn: usize,
    noted: bool,
}

impl Default for LogBudget {
    fn default() -> Self {
        Self {
            call: LOG_BYTES_PER_CALL,
            turn: LOG_BYTES_PER_TURN,
            noted: false,
        }
    }
}

impl LogBudget {
    /// A call starts.
    pub(crate) fn new_call(&mut self) {
        self.call = LOG_BYTES_PER_CALL;
        self.noted = false;
    }

    /// A turn starts.
    pub(crate) fn new_turn(&mut self) {
        *self = Self::default();
    }

    /// Takes `bytes` from the budget; `Err(first)` when they do not fit, `first` being true
    /// the first time in this call (when the note is due).
    fn take(&mut self, bytes: usize) -> Result<(), bool> {
        if bytes > self.call || bytes > self.turn {
            let first = !self.noted;
            self.noted = true;
            self.call = 0;
            return Err(first);
        }
        self.call -= bytes;
        self.turn -= bytes;
        Ok(())
    }
}

impl PluginState {
    /// A guest's log line, within its budget, cut and escaped (every version's `host.log`).
    pub(crate) fn guest_log(&mut self, level: tracing::Level, message: String) {
        if let Err(first) = self.logs.take(message.len().min(MAX_LOG_LINE) + 1) {
            if first {
                tracing::warn!(
                    target: "warden::plugin::guest",
                    plugin = self.name.as_str(),
                    "log budget spent ({LOG_BYTES_PER_CALL} bytes per call, \
                     {LOG_BYTES_PER_TURN} per turn); further lines are dropped"
                );
            }
            return;
        }
        let mut message = message;
        if message.len() > MAX_LOG_LINE {
            let mut cut = MAX_LOG_LINE;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            message.truncate(cut);
            message.push_str(" […]");
        }
        // Escaped only when the line is logged: the macros evaluate their arguments only for
        // an enabled level and target.
        use crate::domain::escape::escape;
        let plugin = self.name.as_str();
        match level {
            tracing::Level::TRACE => {
                tracing::trace!(target: "warden::plugin::guest", plugin, "{}", escape(&message))
            }
            tracing::Level::DEBUG => {
                tracing::debug!(target: "warden::plugin::guest", plugin, "{}", escape(&message))
            }
            tracing::Level::INFO => {
                tracing::info!(target: "warden::plugin::guest", plugin, "{}", escape(&message))
            }
            tracing::Level::WARN => {
                tracing::warn!(target: "warden::plugin::guest", plugin, "{}", escape(&message))
            }
            _ => {
                tracing::error!(target: "warden::plugin::guest", plugin, "{}", escape(&message))
            }
        }
    }
}
