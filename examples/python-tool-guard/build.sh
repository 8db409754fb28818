#!/usr/bin/env bash
# Build the component and write it to plugin.wasm beside this script.
# Needs: componentize-py 0.25 (`pip install 'componentize-py==0.25.*'`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v componentize-py >/dev/null || { echo "componentize-py not installed: pip install 'componentize-py==0.25.*'" >&2; exit 127; }
cd "$here"
# The released 0.2.0 files, not wit/ itself: wit/ moves on to the next version.
componentize-py -d "$here/../../wit/released/0.2.0" -w warden:plugin/interceptor componentize app -o "$here/plugin.wasm"
echo "built $here/plugin.wasm"
