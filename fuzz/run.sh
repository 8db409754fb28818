#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (default 60 s each) on the stable toolchain and
# prints executions and crashes per target. Crashes are written to fuzz/crashes/<target>/, which
# `cargo test -p warden-fuzz` replays as regression tests.
#
#   fuzz/run.sh [SECONDS] [SEED]
#
# The dev profile is used (dependencies are optimised in it already; see the root Cargo.toml);
# PROFILE=release builds everything optimised.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
seed="${2:-24301}"
profile="${PROFILE:-dev}"
cargo build --profile "$profile" -p warden-fuzz --bin warden-fuzz
dir="${CARGO_TARGET_DIR:-target}/$([ "$profile" = dev ] && echo debug || echo "$profile")"
"$dir/warden-fuzz" all --seconds "$seconds" --seed "$seed"
