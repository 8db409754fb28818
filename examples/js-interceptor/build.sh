#!/usr/bin/env bash
# Build the component and write it to plugin.wasm beside this script.
# Needs: node and npm; `npm install` here fetches @bytecodealliance/componentize-js 0.23
# (package.json). Set COMPONENTIZE_JS to use a componentize-js installed elsewhere.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cjs="${COMPONENTIZE_JS:-$here/node_modules/.bin/componentize-js}"
if [ ! -x "$cjs" ]; then
  echo "componentize-js not installed: run \`npm install\` in $here (or set COMPONENTIZE_JS)" >&2
  exit 127
fi
# componentize-js reads files relative to the directory it runs in: run it from the repository
# root. The released 0.2.0 files, not wit/ itself (wit/ moves on). No WASI HTTP: warden gives interceptors no network and does not link wasi:http.
cd "$here/../.."
"$cjs" examples/js-interceptor/app.js --wit wit/released/0.2.0 --world-name warden:plugin/interceptor \
  --disable http fetch-event -o "$here/plugin.wasm"
echo "built $here/plugin.wasm"
