#!/usr/bin/env bash
# Build the component into plugin.wasm. Needs: npm install (componentize-js 0.23).
set -euo pipefail
cd "$(dirname "$0")"
node_modules/.bin/componentize-js app.js --wit wit --world-name warden:plugin/interceptor \
  --disable http fetch-event -o plugin.wasm
echo "built plugin.wasm"
