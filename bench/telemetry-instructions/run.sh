#!/usr/bin/env bash
# What telemetry export costs a turn, in instructions rather than time: the telemetry bench's
# turn (ten `read_file` calls, the `tool-guard` sample in the chain) run under Valgrind's
# callgrind, with export off, on (a collector answering at once), and on with a collector that
# never answers, one that answers 503, and none listening. Instruction counts do not move with the machine's load or its clock, so they
# can tell a 2 % difference apart where the timed bench on a shared 2-core machine cannot.
#
# Two figures per variant, each per turn, from runs of 20 and 60 turns ((I60 - I20) / 40, so
# that start-up and the first turn's warm-up cancel out):
#   - the turn's thread: instructions run inside `Worker::submit`;
#   - all threads: the whole process, export's threads and the bench's own collector included.
# Usage: bench/telemetry-instructions/run.sh   (from the repository's root; needs valgrind)
set -euo pipefail
command -v valgrind >/dev/null || { echo "skip: valgrind is not installed (apt-get install valgrind)"; exit 0; }
OUT="${TMPDIR:-/tmp}/warden-telemetry-instructions"
rm -rf "$OUT"; mkdir -p "$OUT"
BIN=$(cargo bench -p warden --bench telemetry --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "telemetry" and m.get("executable"):
        print(m["executable"])')
[ -x "$BIN" ] || { echo "the telemetry bench did not build"; exit 1; }
export WARDEN_BENCH_COUNT_CACHE="$OUT/cache"
# Compile the plugins once, natively: under valgrind every run loads compiled code.
WARDEN_BENCH_COUNT_TURNS=1 "$BIN" 2>/dev/null
count() { # EXPORT TURNS [valgrind options]: instructions counted
  local export=$1 turns=$2 file="$OUT/$1-$2-$#.out"; shift 2
  WARDEN_BENCH_COUNT_EXPORT=$export WARDEN_BENCH_COUNT_TURNS=$turns \
    valgrind --tool=callgrind --callgrind-out-file="$file" "$@" "$BIN" >"$file.log" 2>&1 \
    || { echo "valgrind failed, see $file.log"; exit 1; }
  sed -n 's/^summary: //p' "$file"
}
per_turn() { # EXPORT [valgrind options]: instructions per turn
  local a b; a=$(count "$1" 20 "${@:2}"); b=$(count "$1" 60 "${@:2}")
  echo $(( (b - a) / 40 ))
}
TURN="--toggle-collect=<warden::worker::turn::Worker>::submit"
printf '%-8s %14s %8s %14s %8s\n' export "turn's thread" ratio "all threads" ratio
for export in off on hung refusing absent; do
  t=$(per_turn "$export" "$TURN"); a=$(per_turn "$export")
  [ "$t" -gt 1000000 ] || { echo "only $t instructions counted in Worker::submit: was it renamed?"; exit 1; }
  [ "$export" = off ] && { t0=$t; a0=$a; }
  printf '%-8s %14d %8.4f %14d %8.4f\n' "$export" "$t" "$(echo "$t / $t0" | bc -l)" "$a" "$(echo "$a / $a0" | bc -l)"
done
# What each 60-turn run handed to export and what the collector took: the rest was counted lost.
for export in on hung refusing absent; do
  printf '%-8s %s\n' "$export" "$(grep -h '^export' "$OUT/$export-60-2.out.log")"
done
