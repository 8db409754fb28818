#!/usr/bin/env bash
# warden's warm plugin call beside Extism running the same logic, measured in one run
# (docs/benchmarks.md, "Plugins beside Extism").
#
#   bench/extism/run.sh [criterion arguments]    (default: --warm-up-time 1 --measurement-time 3)
#
# Builds the Extism guest (guest/, wasm32-unknown-unknown), then the bench crate, whose build
# compiles warden and, through warden's build script, its samples (wasm32-wasip2), among them
# the keyword-context component warden carries as `builtin:keyword-context`. Paths reach the
# bench through the environment:
#   WARDEN_BENCH_EXTISM_GUEST  the Extism guest (set here, to the build below);
#   WARDEN_BENCH_KEYWORD_WASM  optional: another build of keyword-context to load instead of the
#                              built-in one.
# Prints the machine, its load before and after, and criterion's estimates with the ratios.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

die() {
    echo "bench/extism/run.sh: $*" >&2
    exit 1
}

command -v cargo >/dev/null || die "cargo not found (install Rust with rustup)"
command -v rustup >/dev/null || die "rustup not found: it checks the wasm targets"
# The toolchain the repository pins (rust-toolchain.toml), as cargo below will use it.
installed=$(cd "$here" && rustup target list --installed) ||
    die "rustup target list failed"
grep -qx wasm32-unknown-unknown <<<"$installed" ||
    die "the Extism guest needs the wasm32-unknown-unknown target: rustup target add wasm32-unknown-unknown"
grep -qx wasm32-wasip2 <<<"$installed" ||
    die "warden's build compiles its sample plugins for wasm32-wasip2: rustup target add wasm32-wasip2"

if [[ -n ${WARDEN_BENCH_KEYWORD_WASM:-} && ! -f $WARDEN_BENCH_KEYWORD_WASM ]]; then
    die "WARDEN_BENCH_KEYWORD_WASM=$WARDEN_BENCH_KEYWORD_WASM: no such file"
fi

echo "== building the Extism guest (guest/, wasm32-unknown-unknown, +simd128)"
# From inside guest/, so that its .cargo/config.toml (+simd128) applies.
(cd "$here/guest" && cargo build --locked --release --target wasm32-unknown-unknown) ||
    die "building the Extism guest failed (see above)"
guest_target=${CARGO_TARGET_DIR:-$here/guest/target}
guest_wasm=$guest_target/wasm32-unknown-unknown/release/keyword_context_extism.wasm
[[ -f $guest_wasm ]] || die "the guest built but $guest_wasm is missing"

echo "== building the bench (warden, its samples, Extism 1.41)"
(cd "$here" && cargo bench --locked --bench extism --no-run) ||
    die "building the bench failed (see above)"

if (($# == 0)); then
    set -- --warm-up-time 1 --measurement-time 3
fi
echo "== machine: nproc $(nproc), kernel $(uname -r)"
echo "== load before: $(uptime)"
# Without backtraces: Extism builds an error on every call (it asks wasmtime for the fuel left,
# which is not metered), and with RUST_BACKTRACE=1 each one captures a backtrace.
(cd "$here" && RUST_BACKTRACE=0 RUST_LIB_BACKTRACE=0 WARDEN_BENCH_EXTISM_GUEST=$guest_wasm \
    cargo bench --locked --bench extism -- "$@") ||
    die "the bench failed (see above)"
echo "== load after: $(uptime)"

# criterion's estimates of this group, and the ratios the docs quote.
criterion_dir=${CARGO_TARGET_DIR:-$here/target}/criterion
if command -v python3 >/dev/null; then
    python3 - "$criterion_dir" <<'PY'
import json, pathlib, sys

group = "on-prompt-submit 1KB beside Extism"
found = {}
for bench in pathlib.Path(sys.argv[1]).glob("*/*/new/benchmark.json"):
    meta = json.loads(bench.read_text())
    if meta.get("group_id") != group:
        continue
    estimates = json.loads((bench.parent / "estimates.json").read_text())
    # What criterion prints as `time:`: the slope when it has one, else the mean.
    est = estimates.get("slope") or estimates["mean"]
    ci = est["confidence_interval"]
    found[meta["function_id"]] = (est["point_estimate"], ci["lower_bound"], ci["upper_bound"])

def show(ns):
    return f"{ns / 1000:.3g} µs" if ns >= 1000 else f"{ns:.3g} ns"

order = ["native function (floor)", "warden warm instance", "extism JSON", "extism raw bytes"]
print(f"\n{group} (criterion's estimate [95% interval]):")
for name in order:
    if name in found:
        mean, low, high = found[name]
        print(f"  {name:26} {show(mean)} [{show(low)} – {show(high)}]")
warden = found.get("warden warm instance")
for name in ("extism JSON", "extism raw bytes"):
    if warden and name in found:
        print(f"  {name} / warden warm instance: {found[name][0] / warden[0]:.1f}x")
PY
fi
