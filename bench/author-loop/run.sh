#!/usr/bin/env bash
# The author loop, timed per (language, world): `warden plugin new`, a small edit, the native
# test, the build (after `npm install` for JavaScript), and a `warden` command showing the edit
# at work. Wall time of each command and the 1-minute load average, one line per step, in
# $ROOT/results.tsv. Usage:
#   WARDEN=target/debug/warden bench/author-loop/run.sh /tmp/author-loop rust-hook python-tool js-resolver ...
# Needs cargo with the wasm32-wasip2 target, componentize-py 0.25, node and npm (network for
# `npm install`). Each project is new, so each build is a cold one, as a new author's is.
set -u
W="$(readlink -f "${WARDEN:-warden}" 2>/dev/null || command -v warden)"
ROOT="$1"; shift
export WARDEN_HOME="$ROOT/state" XDG_CONFIG_HOME="$ROOT/config"
mkdir -p "$ROOT/state" "$ROOT/config/warden"
RES="$ROOT/results.tsv"
now() { date +%s.%N; }
step() { # NAME COMMAND...: time COMMAND, log its output, record the step
  local s e; s=$(now); "${@:2}" >> "$ROOT/log-$COMBO.txt" 2>&1; local rc=$?; e=$(now)
  echo "$COMBO	$1	$(echo "$e - $s" | bc)	rc=$rc	load=$(cut -d' ' -f1 /proc/loadavg)" >> "$RES"
  return $rc
}
edit() { # a sed expression over the project's own sources
  find "$P" \( -path "$P/wit" -o -path "$P/vendor" -o -path "$P/node_modules" -o -path "$P/target" \) -prune \
    -o -type f \( -name '*.rs' -o -name '*.py' -o -name '*.js' \) -print | xargs sed -i "$1"
}
for combo in "$@"; do
  lang=${combo%-*}; world=${combo#*-}; COMBO=$combo
  name=my-$world-$lang; P="$ROOT/$name"; WS="$ROOT/ws-$combo"
  rm -rf "$P" "$WS"; mkdir -p "$WS"; echo "hello" > "$WS/notes.txt"
  printf '[model]\nprovider = "echo"\n' > "$ROOT/config/warden/config.toml"
  cd "$ROOT" || exit 1
  step new "$W" plugin new "$name" --lang "$lang" --world "$world"
  cd "$P" || exit 1
  # The edit: a message or name the last step then shows.
  case $world in
    interceptor) step edit edit 's/The prompt mentions/Heads up: the prompt mentions/g' ;;
    hook) step edit edit 's/event counts: /events this session: /g' ;;
    resolver) step edit edit 's/not found/does not exist here/g' ;;
    tool) step edit edit 's/count_lines/count_text_lines/g' ;;
  esac
  case $lang in
    rust) step test cargo test --quiet
          step build cargo build --release --target wasm32-wasip2 --quiet
          wasm="$P/target/wasm32-wasip2/release/$(echo "$name" | tr - _).wasm" ;;
    python) step test python3 -m unittest
            step build ./build.sh
            wasm="$P/plugin.wasm" ;;
    js) step test node --test
        step npm-install npm install --no-audit --no-fund
        step build ./build.sh
        wasm="$P/plugin.wasm" ;;
  esac
  case $world in
    interceptor) step show bash -c "'$W' plugin dev '$P' --once --config word=deploy -C '$WS' && '$W' preview -C '$WS' 'how do I deploy' | grep 'Heads up'" ;;
    hook) step show bash -c "'$W' plugin dev '$P' --once -C '$WS' && WARDEN_LOG=warden::plugin=info '$W' run -C '$WS' hi 2>&1 | grep 'events this session'" ;;
    resolver) printf '[model]\nprovider = "echo"\n[fileref]\nresolver = "%s"\n' "$wasm" > "$ROOT/config/warden/config.toml"
              step show bash -c "'$W' preview -C '$WS' '@missing.txt' 2>&1 | grep 'does not exist here'" ;;
    tool) step show bash -c "'$W' plugin check '$wasm' | grep count_text_lines" ;;
  esac
  "$W" plugin dev --stop -C "$WS" >/dev/null 2>&1
done
