#!/bin/sh
# `warden run` of a turn that calls no tool (the scripted model answers at once), with no
# MCP server, with the FastMCP fixture server (tests/fixtures/mcp/server.py, stdio, in the
# sandbox) started as in a first session (no kept listing), and with its listing kept (the
# server starts only on first use). Needs python3 with the `mcp` package.
#
#   bench/mcp-start/run.sh [path/to/warden] [rounds]
set -eu
WARDEN=${1:-target/debug/warden}
ROUNDS=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
WARDEN=$(cd "$(dirname "$WARDEN")" && pwd)/$(basename "$WARDEN")
PYTHON=$(python3 -c 'import sys, mcp.server.fastmcp; print(sys.executable)')
WORK=$(mktemp -d)
trap 'kill "$MODEL" 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM
mkfifo "$WORK/port"
python3 "$HERE/../common/model.py" "" >"$WORK/port" &
MODEL=$!
PORT=$(head -1 "$WORK/port")

w() {
    dir=$1
    shift
    (cd "$dir" && WARDEN_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" \
        OPENAI_API_KEY=x OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" "$WARDEN" "$@")
}

workspace() {
    mkdir -p "$1/.warden"
    printf '[model]\nprovider = "openai"\nname = "bench"\nstream = false\nmax_retries = 0\n' >"$1/.warden/config.toml"
    if [ "$2" = yes ]; then
        printf '[[mcp]]\nname = "fx"\ncommand = ["%s", "%s", "stdio"]\n' \
            "$PYTHON" "$HERE/../../tests/fixtures/mcp/server.py" >>"$1/.warden/config.toml"
    fi
    w "$1" trust >/dev/null
}

timed() {
    start=$(date +%s.%N)
    w "$1" run --json "hello" >"$WORK/out.json" 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
    grep -q "\"outcome\":\"answered\"" "$WORK/out.json" || { cat "$WORK/out.json" "$WORK/err" >&2; exit 1; }
    end=$(date +%s.%N)
    printf '%.3f' "$(echo "$end - $start" | bc)"
}

workspace "$WORK/none" no
workspace "$WORK/mcp" yes
printf 'round\tno server\tserver started\tlisting kept\n'
for round in $(seq "$ROUNDS"); do
    none=$(timed "$WORK/none")
    rm -rf "$WORK/state/mcp"
    eager=$(timed "$WORK/mcp")
    kept=$(timed "$WORK/mcp")
    printf '%s\t%s s\t%s s\t%s s\n' "$round" "$none" "$eager" "$kept"
done
