#!/usr/bin/env bash
# Build the component and write it to plugin.wasm beside this script.
# Needs: node and npm; `npm install` in examples/js-interceptor fetches
# @bytecodealliance/componentize-js 0.23 and jco 1.35 (the examples share them; `npm install`
# here works too). Set COMPONENTIZE_JS to use a componentize-js installed elsewhere.
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
# The released 0.3.0 files (wit/ moves on to the next version), js-fs.wit (the resolver's world
# plus the WASI file-system interfaces fs.js reads through) and those interfaces' WIT, taken
# from the jco package installed beside componentize-js, assembled in a scratch directory.
wasi="$(dirname "$(readlink -f "$cjs")")/../../jco/lib/wit/builtin/0.2.12"
[ -d "$wasi" ] || wasi="$(dirname "$cjs")/../@bytecodealliance/jco/lib/wit/builtin/0.2.12"
[ -d "$wasi" ] || { echo "the WASI WIT of jco 1.35 is missing (looked beside $cjs): run \`npm install\`" >&2; exit 127; }
wit="$(mktemp -d)"
trap 'rm -rf "$wit"' EXIT
cp "$here"/../../wit/released/0.3.0/*.wit "$here/js-fs.wit" "$wit/"
mkdir -p "$wit/deps"
for dep in wasi-filesystem wasi-io wasi-clocks; do cp -r "$wasi/$dep" "$wit/deps/"; done
cd "$here"
"$cjs" app.js --wit "$wit" --world-name warden:plugin/resolver-fs \
  --disable http fetch-event -o "$here/plugin.wasm"
echo "built $here/plugin.wasm"
