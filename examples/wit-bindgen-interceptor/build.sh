#!/usr/bin/env bash
# Build the component and copy it to plugin.wasm beside this script.
# Needs: cargo and the wasm32-wasip2 target (`rustup target add wasm32-wasip2`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${CARGO_TARGET_DIR:-$here/target}"
cargo build --manifest-path "$here/Cargo.toml" --release --target wasm32-wasip2 --target-dir "$target" ${CARGO_OFFLINE:+--offline}
cp "$target/wasm32-wasip2/release/wit_bindgen_interceptor.wasm" "$here/plugin.wasm"
echo "built $here/plugin.wasm"
