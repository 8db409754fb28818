#!/usr/bin/env bash
# Build the component into plugin.wasm. Needs: npm install (componentize-js 0.23), or
# COMPONENTIZE_JS naming a componentize-js installed elsewhere.
set -euo pipefail
cd "$(dirname "$0")"
cjs="${COMPONENTIZE_JS:-node_modules/.bin/componentize-js}"
[ -x "$cjs" ] || { echo "componentize-js not installed: run \`npm install\` here (or set COMPONENTIZE_JS)" >&2; exit 127; }
# No WASI HTTP: warden does not link wasi:http (a tool plugin fetches through warden's `outgoing`).
"$cjs" {{app}} --wit wit --world-name warden:plugin/{{world}} \
  --disable http fetch-event -o plugin.wasm
echo "built plugin.wasm"
