#!/usr/bin/env bash
# Coverage-guided fuzzing with AFL++ (through cargo-afl) on the stable toolchain: runs each
# target, one after another, from its corpus (fuzz/corpus/<target>/) for about EXECS executions
# (default 1 000 000) or at most SECONDS (default 1800) each, whichever comes first; copies every
# crash to fuzz/crashes/<target>/ (which `cargo test -p warden-fuzz` replays) and prints one
# line per target from AFL++'s fuzzer_stats.
#
#   fuzz/afl.sh [EXECS] [SECONDS] [TARGET...]
#
# Needs `cargo install cargo-afl` (AFL++ is built on first use). The instrumented build goes to
# $AFL_TARGET_DIR (default: "${CARGO_TARGET_DIR:-target}-afl"), AFL++'s findings to
# $AFL_TARGET_DIR/afl-out/<target>/ (replaced at each run; with AFL_RESUME=1 an earlier run
# there goes on, its executions and run time counted towards EXECS).
set -euo pipefail
cd "$(dirname "$0")/.."
execs="${1:-1000000}"
seconds="${2:-1800}"
shift $(($# < 2 ? $# : 2))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(at_parser history config sse boundary)

command -v cargo-afl >/dev/null || {
    echo "cargo-afl is missing: cargo install cargo-afl" >&2
    exit 2
}
target_dir="${AFL_TARGET_DIR:-${CARGO_TARGET_DIR:-target}-afl}"
CARGO_TARGET_DIR="$target_dir" cargo afl build --release -p warden-fuzz --features afl \
    --bin warden-fuzz-afl
bin="$target_dir/release/warden-fuzz-afl"

# A hang is an execution over 500 ms (AFL++ would pick 20 ms or so, too tight on a loaded
# machine). Shared machines: no CPU governor or core-binding checks, no fancy screen, quick calibration.
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
    AFL_NO_AFFINITY=1 AFL_FAST_CAL=1

stat() { sed -n "s/^$1 *: *//p" "$2"; }

status=0
printf '%-10s %10s %8s %6s %8s %7s %6s\n' target execs crashes hangs exec/s seconds edges
for name in "${targets[@]}"; do
    out="$target_dir/afl-out/$name"
    seeds="fuzz/corpus/$name"
    if [ "${AFL_RESUME:-0}" = 1 ] && [ -f "$out/default/fuzzer_stats" ]; then
        seeds=-
    else
        rm -rf "$out"
        mkdir -p "$out"
    fi
    cargo afl fuzz -i "$seeds" -o "$out" -x fuzz/afl.dict -t 500 -E "$execs" -V "$seconds" \
        -- "$bin" "$name" >>"$out/log" 2>&1 || {
        echo "$name: afl-fuzz failed, see $out/log" >&2
        tail -20 "$out/log" >&2
        status=1
        continue
    }
    stats="$out/default/fuzzer_stats"
    crashes="$(stat saved_crashes "$stats")"
    done_="$(stat execs_done "$stats")"
    time_="$(stat run_time "$stats")"
    printf '%-10s %10s %8s %6s %8s %7s %6s\n' "$name" "$done_" "$crashes" \
        "$(stat saved_hangs "$stats")" "$((done_ / (time_ > 0 ? time_ : 1)))" "$time_" \
        "$(stat edges_found "$stats")"
    for crash in "$out"/default/crashes/id:*; do
        [ -f "$crash" ] || continue
        mkdir -p "fuzz/crashes/$name"
        cp "$crash" "fuzz/crashes/$name/afl-$(sha256sum "$crash" | cut -c1-16)"
        status=1
    done
done
exit "$status"
