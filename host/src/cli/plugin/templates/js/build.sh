#!/usr/bin/env bash
# Build the component into plugin.wasm. Needs: npm install (componentize-js 0.23), or
# COMPONENTIZE_JS naming a componentize-js installed elsewhere.
set -euo pipefail
cd "$(dirname "$0")"
cjs="${COMPONENTIZE_JS:-node_modules/.bin/componentize-js}"
[ -x "$cjs" ] || { echo "componentize-js not installed: run \`npm install\` here (or set COMPONENTIZE_JS)" >&2; exit 127; }
if [ -n "{{wasi_deps}}" ]; then
    # The WASI file-system WIT that wit/js-fs.wit imports, from the jco package installed
    # beside componentize-js.
    wasi="$(dirname "$(readlink -f "$cjs")")/../../jco/lib/wit/builtin/0.2.12"
    [ -d "$wasi" ] || wasi="$(dirname "$cjs")/../@bytecodealliance/jco/lib/wit/builtin/0.2.12"
    [ -d "$wasi" ] || { echo "the WASI WIT of jco 1.35 is missing (looked beside $cjs): run \`npm install\` here" >&2; exit 127; }
    rm -rf wit/deps && mkdir -p wit/deps
    for dep in wasi-filesystem wasi-io wasi-clocks; do cp -r "$wasi/$dep" wit/deps/; done
fi
# No WASI HTTP: warden does not link wasi:http (a tool plugin fetches through warden's `outgoing`).
"$cjs" app.js --wit wit --world-name warden:plugin/{{build_world}} \
  --disable http fetch-event -o plugin.wasm
echo "built plugin.wasm"
