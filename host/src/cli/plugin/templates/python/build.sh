#!/usr/bin/env bash
# Build the component into plugin.wasm. Needs: pip install 'componentize-py==0.25.*'
set -euo pipefail
cd "$(dirname "$0")"
command -v componentize-py >/dev/null || { echo "componentize-py not installed: pip install 'componentize-py==0.25.*'" >&2; exit 127; }
# `-p .`: app.py imports logic.py from this directory.
componentize-py -d wit -w warden:plugin/{{world}} componentize app -p . -o plugin.wasm
echo "built plugin.wasm"
