#!/bin/sh
# One `PreToolUse` guard (deny `rm -rf` in a `Bash` command), per call, three ways:
#
#   (a) direct:  guard.py spawned per call the way Claude Code runs a command hook
#                (`/bin/sh -c COMMAND`, the event as JSON on stdin): spawn.py;
#   (b) warden:  the same command as a `[[hooks]]` entry, run by warden in its sandbox: a
#                `warden run` whose scripted model (bench/common/model.py) makes CALLS `shell` calls, with
#                the hook and without it; (with - without) / CALLS is the hook's cost per call;
#   (c) wasm:    the `tool-guard` interceptor with `deny = "shell:*rm -rf*"`, warm
#                `pre-tool-call`, timed by `warden plugin bench` in the same session.
#
# Before timing, a `warden run` whose model asks for `rm -rf victim` checks that the hook
# denies it (`by: hook:guard`) and that the file is still there.
#
# HOOK_FS=none (or read-write) in the environment sets the hook entry's `fs` grant (default:
# none set, that is `read`). Under `none` the workspace is not in the hook's sandbox, so the
# same guard is given inline (`python3 -c '...'`), in (a) as in (b).
#
#   bench/hooks/run.sh [path/to/warden] [rounds] [calls] [path/to/tool_guard.wasm]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
WARDEN=${1:-$HERE/../../target/debug/warden}
ROUNDS=${2:-5}
CALLS=${3:-20}
WASM=${4:-$HERE/../../target/guests/wasm32-wasip2/release/tool_guard.wasm}
WARDEN=$(cd "$(dirname "$WARDEN")" && pwd)/$(basename "$WARDEN")
# The interpreter itself, named by its path in both (a) and (b): a `python3` found through a
# version manager's shim (pyenv: a chain of bash scripts) costs more than the guard itself.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
GUARD="$PYTHON .claude/hooks/guard.py"
if [ "${HOOK_FS:-}" = none ]; then
    GUARD="$PYTHON -c 'import json, sys; c = json.load(sys.stdin).get(\"tool_input\", {}).get(\"command\", \"\"); sys.exit(\"rm -rf\" in c and (print(\"Blocked: rm -rf is not allowed here\", file=sys.stderr) or 2))'"
fi
WORK=$(mktemp -d)
MODEL=
CHECK=
trap 'kill $MODEL $CHECK 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM

# Starts a scripted model in the background; its port is read from a fifo.
start_model() {
    mkfifo "$WORK/port.$1"
    python3 "$HERE/../common/model.py" "$2" "$3" >"$WORK/port.$1" &
    echo $! >"$WORK/pid.$1"
    head -1 "$WORK/port.$1" >"$WORK/portnum.$1"
}
start_model bench "ls -la" "$CALLS"
MODEL=$(cat "$WORK/pid.bench")
start_model check "rm -rf victim" 1
CHECK=$(cat "$WORK/pid.check")

# A workspace and its own user configuration; `yes` adds the guard as a hook.
workspace() {
    mkdir -p "$1/ws/.claude/hooks" "$1/ws/victim" "$1/config/warden" "$1/home"
    cp "$HERE/guard.py" "$1/ws/.claude/hooks/guard.py"
    echo keep >"$1/ws/victim/keep.txt"
    printf '[model]\nprovider = "openai"\nname = "bench"\nstream = false\nmax_retries = 0\n\n[tools]\nmode = "full-auto"\n\n' \
        >"$1/config/warden/config.toml"
    if [ "$2" = yes ]; then
        printf '[[hooks]]\nname = "guard"\nevent = "PreToolUse"\nmatcher = "Bash"\ntype = "command"\ncommand = %s\n' "$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$GUARD")" \
            >>"$1/config/warden/config.toml"
        if [ -n "${HOOK_FS:-}" ]; then
            printf 'fs = "%s"\n' "$HOOK_FS" >>"$1/config/warden/config.toml"
        fi
    fi
}

w() {
    dir=$1
    port=$2
    shift 2
    (cd "$dir/ws" && HOME="$dir/home" WARDEN_HOME="$dir/state" XDG_CONFIG_HOME="$dir/config" \
        OPENAI_API_KEY=x OPENAI_BASE_URL="http://127.0.0.1:$port/v1" "$WARDEN" "$@")
}

timed() {
    start=$(date +%s.%N)
    w "$1" "$(cat "$WORK/portnum.bench")" run --json "go" >"$WORK/out.json" 2>"$WORK/err" ||
        { cat "$WORK/out.json" "$WORK/err" >&2; exit 1; }
    grep -q '"outcome":"answered"' "$WORK/out.json" || { cat "$WORK/out.json" "$WORK/err" >&2; exit 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

workspace "$WORK/bare" no
workspace "$WORK/hook" yes

# The check: the hook denies `rm -rf` through warden, and says so.
w "$WORK/hook" "$(cat "$WORK/portnum.check")" run --json-stream "go" >"$WORK/check.jsonl" 2>"$WORK/err" || true
grep '"tool_call_decided"' "$WORK/check.jsonl" | grep -q '"by":"hook:guard"' ||
    { echo "the hook did not deny rm -rf" >&2; cat "$WORK/check.jsonl" "$WORK/err" >&2; exit 1; }
[ -f "$WORK/hook/ws/victim/keep.txt" ] || { echo "rm -rf ran" >&2; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "machine: $(nproc) cores, $(uname -r); load: $(uptime | sed 's/.*load average: //')"
echo "warden: $("$WARDEN" --version | head -1); hook fs: ${HOOK_FS:-read (default)}; hook: $GUARD ($("$PYTHON" --version 2>&1)); calls per run: $CALLS"
printf 'round\t(a) direct ms/call\t(b) warden ms/call\trun without hook s\trun with hook s\n'
: >"$WORK/a"
: >"$WORK/b"
for round in $(seq "$ROUNDS"); do
    direct=$(python3 "$HERE/spawn.py" "$GUARD" "$CALLS" "$WORK/hook/ws")
    bare=$(timed "$WORK/bare")
    hooked=$(timed "$WORK/hook")
    per=$(echo "scale=2; ($hooked - $bare) * 1000 / $CALLS" | bc)
    echo "$direct" >>"$WORK/a"
    echo "$per" >>"$WORK/b"
    printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$direct" "$per" "$bare" "$hooked"
done
a=$(median <"$WORK/a")
b=$(median <"$WORK/b")
printf 'median\t%s\t%s\n' "$a" "$b"
echo "sandbox overhead (b / a - 1): $(echo "scale=3; ($b / $a - 1) * 100" | bc) %"

if [ -f "$WASM" ]; then
    (cd "$WORK/hook/ws" && HOME="$WORK/hook/home" WARDEN_HOME="$WORK/hook/state" XDG_CONFIG_HOME="$WORK/hook/config" \
        "$WARDEN" plugin bench "$WASM" --config 'deny=shell:*rm -rf*' \
        --args 'shell={"command":"ls -la"}' --json) >"$WORK/wasm.json"
    warm=$(python3 -c 'import json, sys
calls = json.load(open(sys.argv[1]))["calls"]
print(next(c["warm_ns"] for c in calls if c["point"] == "pre-tool-call"))' "$WORK/wasm.json")
    echo "(c) wasm tool-guard, warm pre-tool-call: $warm ns"
    echo "hook (a) / wasm: $(echo "$a * 1000000 / $warm" | bc)x; hook through warden (b) / wasm: $(echo "$b * 1000000 / $warm" | bc)x"
else
    echo "(c) skipped: no $WASM (build the guests first)"
fi
echo "load after: $(uptime | sed 's/.*load average: //')"
