#!/usr/bin/env bash
# Build the component and write it to plugin.wasm beside this script.
# Needs: pip install 'componentize-py==0.25.*'
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v componentize-py >/dev/null || { echo "componentize-py not installed: pip install 'componentize-py==0.25.*'" >&2; exit 127; }
# The released 0.3.0 files, not wit/ itself (wit/ moves on to the next version); `-p .`:
# app.py imports logic.py from this directory.
cd "$here"
componentize-py -d ../../wit/released/0.3.0 -w warden:plugin/resolver componentize app -p . -o plugin.wasm
echo "built $here/plugin.wasm"
