#!/bin/sh
# A cargo build of a small crate with four dependencies from the user's registry, run by
# `warden run` in the sandbox (the scripted model in ../common/model.py calls `shell`): with the
# workspace's private build caches (`[tools.shell] build_caches = true`, the default) and
# with the user's cargo home as it is (`false`). Offline: the crates must be in ~/.cargo.
#
#   bench/build-caches/run.sh [path/to/warden] [rounds]
set -eu
WARDEN=${1:-target/debug/warden}
ROUNDS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
WARDEN=$(cd "$(dirname "$WARDEN")" && pwd)/$(basename "$WARDEN")
WORK=$(mktemp -d)
trap 'kill "$MODEL" 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM
mkfifo "$WORK/port"
python3 "$HERE/../common/model.py" "cargo build --offline 2>&1 | tail -3" >"$WORK/port" &
MODEL=$!
PORT=$(head -1 "$WORK/port")

crate() {
    mkdir -p "$1/src" "$1/.warden"
    cat >"$1/Cargo.toml" <<TOML
[package]
name = "demo"
version = "0.1.0"
edition = "2021"

[dependencies]
itoa = "=1.0.19"
cfg-if = "=1.0.5"
scopeguard = "=1.2.0"
either = "=1.19.0"
TOML
    echo 'pub fn f() -> String { itoa::Buffer::new().format(7).to_owned() }' >"$1/src/lib.rs"
    printf '[model]\nprovider = "openai"\nname = "bench"\nstream = false\nmax_retries = 0\n[tools.shell]\nbuild_caches = %s\n' "$2" >"$1/.warden/config.toml"
}

# warden in directory $1, with its own state, configuration and cache homes.
w() {
    dir=$1
    shift
    (cd "$dir" && WARDEN_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" \
        XDG_CACHE_HOME="$WORK/cache" OPENAI_API_KEY=x \
        OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" "$WARDEN" "$@")
}

# One turn building the crate: the case, the wall time of `warden run`, cargo's last line.
turn() {
    start=$(date +%s.%N)
    w "$1" run --json --mode full-auto "build it" >"$WORK/out.json" 2>"$WORK/err" || true
    end=$(date +%s.%N)
    printf '%s\t%s\t%.2f s\t%s\n' "$2" "$3" "$(echo "$end - $start" | bc)" \
        "$(w "$1" session export "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$WORK/out.json")" |
            python3 -c 'import json,sys; t=[i["text"] for i in json.load(sys.stdin) if i["role"]=="tool"]; print(" | ".join(t[-1].strip().splitlines()[-3:]))')"
}

for round in $(seq "$ROUNDS"); do
    for caches in false true; do
        ws="$WORK/ws-$caches-$round"
        crate "$ws" "$caches"
        w "$ws" trust >/dev/null
        turn "$ws" "build_caches=$caches" "first build"
        rm -rf "$ws/target"
        turn "$ws" "build_caches=$caches" "again, target removed"
    done
    rm -rf "$WORK/cache"
done
