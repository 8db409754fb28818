#!/bin/sh
# Builds the fresh-instance program against wasmtime 48.0.8 and 51.0.0 (and 50.0.1 with
# `ALL=1`), runs the builds alternately, ROUNDS_OUTER times each, and prints the ratio of the
# medians. Arguments are passed to the program (a component path); the environment knobs of
# src/main.rs (ITERS, ROUNDS, KEEP_RESIDENT, PAGEMAP, COW, TOUCH_PAGES) apply to every build.
set -eu
cd "$(dirname "$0")"
versions="48 51"
[ "${ALL:-0}" = 1 ] && versions="48 50 51"
for v in $versions; do
    nice -n 10 cargo build --release --locked --features "w$v" >&2
    cp target/release/warden-fresh-instance-bench "target/release/fresh-w$v"
done
outer=${ROUNDS_OUTER:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ "$i" -lt "$outer" ]; do
    for v in $versions; do
        "target/release/fresh-w$v" "$@" | tee -a "$out"
    done
    i=$((i + 1))
done
# The median of the per-run medians of each version, and the ratios to 51.0.0.
median() {
    grep "^wasmtime $1:" "$out" | awk '{ print $3 }' | sort -n |
        awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
m51=$(median 51.0.0)
for v in $versions; do
    full=$(grep -o "^wasmtime $v[.0-9]*" "$out" | head -n 1 | cut -d' ' -f2)
    m=$(median "$full")
    echo "wasmtime $full: median $m ns/instance over $outer runs"
    [ "$v" = 51 ] || awk -v a="$m51" -v b="$m" -v v="$full" 'BEGIN { printf "51.0.0 / %s = %.2f\n", v, a / b }'
done
