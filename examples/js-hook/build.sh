#!/usr/bin/env bash
# Build the component and write it to plugin.wasm beside this script.
# Needs: node and npm; `npm install` in examples/js-interceptor fetches
# @bytecodealliance/componentize-js 0.23 (the examples share it; `npm install` here works too).
# Set COMPONENTIZE_JS to use a componentize-js installed elsewhere.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cjs="${COMPONENTIZE_JS:-}"
for candidate in "$here/node_modules/.bin/componentize-js" "$here/../js-interceptor/node_modules/.bin/componentize-js"; do
  if [ -z "$cjs" ] && [ -x "$candidate" ]; then cjs="$candidate"; fi
done
if [ -z "$cjs" ] || [ ! -x "$cjs" ]; then
  echo "componentize-js not installed: run \`npm install\` in $here (or set COMPONENTIZE_JS)" >&2
  exit 127
fi
# The released 0.3.0 files, not wit/ itself (wit/ moves on to the next version). No WASI HTTP:
# warden does not link wasi:http.
cd "$here"
"$cjs" app.js --wit ../../wit/released/0.3.0 --world-name warden:plugin/hook \
  --disable http fetch-event -o "$here/plugin.wasm"
echo "built $here/plugin.wasm"
