#!/usr/bin/env bash
# `warden audit verify` on a session whose audit log holds 100 000 records (about 40 MB, a
# history commit group every 100 records): wall time and peak memory (max RSS) of the binary,
# five runs, measured by /usr/bin/time. The goal: at most 1 s and 32 MB.
#
# The binary is the dev build with warden itself at opt-level 2 like its dependencies
# (`--config profile.dev.package.warden.opt-level=2`: no release build of every dependency
# needed; the next plain dev build compiles warden again at opt-level 0). Set OPT=0 to time
# the unoptimised dev binary instead.
# Usage: bench/audit-verify/run.sh [RECORDS]   (from the repository's root)
set -euo pipefail
RECORDS=${1:-100000}
OUT="${TMPDIR:-/tmp}/warden-audit-verify"
rm -rf "$OUT"; mkdir -p "$OUT/state"
OPT=${OPT:-2}
CONFIG=(--config "profile.dev.package.warden.opt-level=$OPT")
cargo build -q -p warden "${CONFIG[@]}"
WARDEN="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/warden"
ID=$(WARDEN_BENCH_AUDIT_HOME="$OUT/state" WARDEN_BENCH_AUDIT_RECORDS=$RECORDS \
  cargo bench -q --profile dev -p warden --bench audit_verify "${CONFIG[@]}" | tail -1)
LOG="$OUT/state/sessions/$ID/audit.jsonl"
echo "session $ID: $(wc -l <"$LOG") lines, $(du -m "$LOG" | cut -f1) MB of audit log"
echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in 1 2 3 4 5; do
  WARDEN_HOME="$OUT/state" /usr/bin/time -f "run $run: %e s wall, %M KB max RSS, exit %x" \
    "$WARDEN" audit verify "$ID" >"$OUT/verify.out" 2>"$OUT/time.$run" || true
  tail -1 "$OUT/time.$run"
done
cat "$OUT/verify.out"
