//! Times a fresh instance through the pooling allocator and an `InstancePre`, the way warden
//! starts a plugin: a new `Store`, `instantiate`, then the store dropped (its slot goes back to
//! the pool). Prints nanoseconds per instance.
//!
//! The guest is the largest core module inside a plugin component (its linear memory, data
//! segments and table), instantiated as a core module: wasmtime 51.0.0's `component-model`
//! feature cannot be built from crates.io (its `wasmtime-internal-wit-bindgen` 51.0.0 is not
//! published), and the core instance is where the memory and table slots are taken and reset.
//!
//! Usage: `warden-fresh-instance-bench [COMPONENT.wasm]` (default: the repository's
//! `tests/fixtures/v0.2.0/keyword_context.wasm`). The module's imports are defined as traps;
//! nothing is called. After instantiating, the host writes one byte into each of `TOUCH_PAGES`
//! 4 KiB pages just below 1 MiB of the instance's linear memory (the top of a Rust guest's
//! stack; default 5, the page faults counted per fresh plugin instance in warden), so the
//! slot's reset has pages to undo, as after a guest's `init`.
//!
//! Environment: `ITERS` (default 20000), `ROUNDS` (default 5; the median round is printed),
//! `KEEP_RESIDENT` (bytes of linear memory kept resident in a reused slot, default 0, as in
//! warden), `TABLE_KEEP_RESIDENT` (default 65536, as in warden), `PAGEMAP` (`auto`, `yes` or
//! `no`; default `auto`), `COW` (`1` or `0`, memory-init copy-on-write; default `1`),
//! `TOUCH_PAGES` (default 5).

#[cfg(feature = "w48")]
use wasmtime48 as wasmtime;
#[cfg(feature = "w50")]
use wasmtime50 as wasmtime;
#[cfg(feature = "w51")]
use wasmtime51 as wasmtime;

#[cfg(not(any(feature = "w48", feature = "w50", feature = "w51")))]
compile_error!("build with one of the features w48, w50, w51");

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, Linker, Module, PoolingAllocationConfig,
    Store,
};

const VERSION: &str = if cfg!(feature = "w48") {
    "48.0.8"
} else if cfg!(feature = "w50") {
    "50.0.1"
} else {
    "51.0.0"
};

fn env_num(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .map_err(|e| format!("{name}={v:?} is not a number: {e}")),
        Err(_) => Ok(default),
    }
}

fn env_pagemap() -> Result<Enabled, String> {
    match std::env::var("PAGEMAP").as_deref() {
        Err(_) | Ok("auto") => Ok(Enabled::Auto),
        Ok("yes") => Ok(Enabled::Yes),
        Ok("no") => Ok(Enabled::No),
        Ok(other) => Err(format!("PAGEMAP={other:?}: expected auto, yes or no")),
    }
}

/// The pool warden configures (`host/src/plugin/engine.rs`), with the knobs above. Without
/// `total_stacks`: it needs wasmtime's `async` feature, which wasmtime 51.0.0 cannot resolve
/// from crates.io either, and a synchronous instance takes no stack from the pool.
fn engine(keep: usize, table_keep: usize, pagemap: Enabled, cow: bool) -> wasmtime::Result<Engine> {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(256)
        .total_core_instances(1024)
        .total_memories(256)
        .total_tables(512)
        .max_memories_per_component(8)
        .max_core_instances_per_component(32)
        .max_tables_per_component(32)
        .max_memory_size(1 << 30)
        .max_unused_warm_slots(32)
        .linear_memory_keep_resident(keep)
        .table_keep_resident(table_keep)
        .pagemap_scan(pagemap);
    let mut config = Config::new();
    config
        .epoch_interruption(true)
        .max_wasm_stack(512 << 10)
        .memory_init_cow(cow)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    Engine::new(&config)
}

/// Reads an unsigned LEB128 `u32` at `*at`, advancing it.
fn leb_u32(bytes: &[u8], at: &mut usize) -> Result<u32, String> {
    let mut value: u64 = 0;
    for shift in (0..35).step_by(7) {
        let byte = *bytes
            .get(*at)
            .ok_or_else(|| format!("truncated LEB128 at byte {at}"))?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return u32::try_from(value).map_err(|_| format!("LEB128 too large at byte {at}"));
        }
    }
    Err(format!("LEB128 too long at byte {at}"))
}

/// The largest core module (section id 1) at the top level of a component binary; a core
/// module is returned as it is.
fn core_module(bytes: &[u8]) -> Result<&[u8], String> {
    const COMPONENT_HEADER: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];
    if bytes.get(..8) != Some(&COMPONENT_HEADER) {
        return Ok(bytes);
    }
    let mut at = 8;
    let mut best: &[u8] = &[];
    while at < bytes.len() {
        let id = bytes[at];
        at += 1;
        let size = leb_u32(bytes, &mut at)? as usize;
        let body = bytes
            .get(at..at + size)
            .ok_or_else(|| format!("section at byte {at} runs past the end"))?;
        if id == 1 && body.len() > best.len() {
            best = body;
        }
        at += size;
    }
    if best.is_empty() {
        return Err("the component holds no core module".into());
    }
    Ok(best)
}

fn run() -> Result<(), String> {
    let wasm = match std::env::args_os().nth(1) {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/v0.2.0/keyword_context.wasm"),
    };
    let iters = env_num("ITERS", 20_000)?.max(1);
    let rounds = env_num("ROUNDS", 5)?.max(1);
    let keep = env_num("KEEP_RESIDENT", 0)?;
    let table_keep = env_num("TABLE_KEEP_RESIDENT", 64 << 10)?;
    let pagemap = env_pagemap()?;
    let cow = env_num("COW", 1)? != 0;
    let touch = env_num("TOUCH_PAGES", 5)?;

    let bytes = std::fs::read(&wasm).map_err(|e| format!("reading {}: {e}", wasm.display()))?;
    let engine = engine(keep, table_keep, pagemap, cow)
        .map_err(|e| format!("creating the engine: {e:?}"))?;
    let module = Module::new(&engine, core_module(&bytes)?)
        .map_err(|e| format!("compiling {}: {e:?}", wasm.display()))?;
    let mut linker: Linker<()> = Linker::new(&engine);
    linker
        .define_unknown_imports_as_traps(&module)
        .map_err(|e| format!("defining the imports of {}: {e:?}", wasm.display()))?;
    let pre = linker
        .instantiate_pre(&module)
        .map_err(|e| format!("pre-instantiating {}: {e:?}", wasm.display()))?;

    let one = || -> Result<(), String> {
        let mut store = Store::new(&engine, ());
        store.set_epoch_deadline(u64::MAX / 2);
        let instance = pre
            .instantiate(&mut store)
            .map_err(|e| format!("instantiating {}: {e:?}", wasm.display()))?;
        if touch > 0 {
            let memory = instance
                .get_memory(&mut store, "memory")
                .ok_or_else(|| format!("{} exports no memory named `memory`", wasm.display()))?;
            let data = memory.data_mut(&mut store);
            // The pages just below 1 MiB, where a Rust guest's stack starts and grows down:
            // zero pages outside the copy-on-write image, the ones a guest's `init` dirties.
            let top = data.len().min(1 << 20);
            for page in 1..=touch {
                let at = top.checked_sub(page * 4096).ok_or_else(|| {
                    format!(
                        "TOUCH_PAGES={touch} is more than the memory's {} bytes",
                        data.len()
                    )
                })?;
                data[at] = data[at].wrapping_add(1);
            }
        }
        Ok(())
    };
    // Warm-up: fill the pool's warm slots and the page cache.
    for _ in 0..iters.min(1000) {
        one()?;
    }
    let mut per: Vec<f64> = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..iters {
            one()?;
        }
        per.push(start.elapsed().as_nanos() as f64 / iters as f64);
    }
    per.sort_by(f64::total_cmp);
    let median = per[per.len() / 2];
    println!(
        "wasmtime {VERSION}: {median:.0} ns/instance (median of {rounds} x {iters}; rounds {}; \
         touch_pages={touch} keep_resident={keep} table_keep_resident={table_keep} \
         pagemap={pagemap:?} cow={cow})",
        per.iter()
            .map(|v| format!("{v:.0}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("warden-fresh-instance-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
