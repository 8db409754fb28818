//! The data of one plugin's store: its WASI context (granting nothing by default), resource
//! table, memory limits and name; and the `host` interface every world imports.

use wasmtime::component::ResourceTable;
use wasmtime::{StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::bindings::interceptor::warden::plugin::{host, types};
use super::limits::Limits;

/// Store data of one plugin instance.
pub(crate) struct PluginState {
    pub(crate) name: String,
    wasi: WasiCtx,
    table: ResourceTable,
    pub(crate) limits: StoreLimits,
}

impl PluginState {
    /// State with the given WASI context and limits.
    pub(crate) fn new(name: &str, wasi: WasiCtx, limits: &Limits) -> Self {
        Self {
            name: name.to_owned(),
            wasi,
            table: ResourceTable::new(),
            limits: StoreLimitsBuilder::new()
                .memory_size(limits.memory_bytes)
                .instances(64)
                .tables(64)
                .memories(8)
                .trap_on_grow_failure(true)
                .build(),
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
        .socket_addr_check(|_, _| Box::pin(async { false }));
    builder
}

/// The WASI factory of interceptors and hooks: [`closed_wasi`] with stderr captured.
pub(crate) fn no_capabilities() -> super::instance::WasiFactory {
    Box::new(|stderr| {
        let mut wasi = closed_wasi();
        wasi.stderr(stderr);
        wasi.build()
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

impl types::Host for PluginState {}

/// Longest guest log line kept; the rest is cut so a plugin cannot flood the log.
const MAX_LOG_LINE: usize = 4096;

impl host::Host for PluginState {
    fn log(&mut self, level: types::LogLevel, message: String) {
        let mut message = message;
        if message.len() > MAX_LOG_LINE {
            let mut cut = MAX_LOG_LINE;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            message.truncate(cut);
            message.push_str(" […]");
        }
        let plugin = self.name.as_str();
        match level {
            types::LogLevel::Trace => {
                tracing::trace!(target: "warden::plugin::guest", plugin, "{message}")
            }
            types::LogLevel::Debug => {
                tracing::debug!(target: "warden::plugin::guest", plugin, "{message}")
            }
            types::LogLevel::Info => {
                tracing::info!(target: "warden::plugin::guest", plugin, "{message}")
            }
            types::LogLevel::Warn => {
                tracing::warn!(target: "warden::plugin::guest", plugin, "{message}")
            }
            types::LogLevel::Error => {
                tracing::error!(target: "warden::plugin::guest", plugin, "{message}")
            }
        }
    }
}
