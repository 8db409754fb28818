#!/usr/bin/env bash
# Native unit tests of the guest crates, one crate per cargo invocation: each crate enables
# exactly one world feature of the SDK, and one invocation would unify them.
set -euo pipefail
cd "$(dirname "$0")"
for crate in warden-defaults warden-rules file-ref keyword-context pattern-guard event-counter todo-reminder grep-tool edit-tool tool-guard; do
    cargo test --quiet -p "$crate"
done
# The SDK's own tests, each with the world it needs: the lent prompt's fields and search
# (interceptor), the workspace's paths and the whole-file reads (tool).
cargo test --quiet -p warden-plugin --features interceptor
cargo test --quiet -p warden-plugin --features tool
