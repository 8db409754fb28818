#!/usr/bin/env bash
# Build the component into plugin.wasm. Needs: pip install 'componentize-py==0.25.*'
set -euo pipefail
cd "$(dirname "$0")"
componentize-py -d wit -w warden:plugin/interceptor componentize app -o plugin.wasm
echo "built plugin.wasm"
