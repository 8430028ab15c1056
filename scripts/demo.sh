#!/usr/bin/env bash
# The main job, from a fresh machine: build a sample collection and print its catalogue.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh rust
mkdir -p .work
echo "== writing sample collections with the reference writer (atlas-rust 0.17.2)"
cargo run --quiet --release -p atlas-interop -- suite .work/samples >/dev/null
echo "== catalogue, read through atlas-wasm's core"
cargo run --quiet --release --example catalogue -- .work/samples/"${1:-ten_thousand_datasets}" "${2:-12}"
