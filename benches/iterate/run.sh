#!/usr/bin/env bash
# `atlas.iterate` over many datasets in Node, against one `readAcross` of them
# all, in fresh processes (docs/benchmarks.md, "iterate over a million
# datasets"). Writes the collections with our writer (~20 s for a million),
# serves them over HTTP and prints a table. Needs js/dist (bash
# js/scripts/build.sh) and js/node_modules.
#   bash benches/iterate/run.sh [SIZE ...]     (default: 10000 100000 1000000)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(realpath -m "${ATLAS_BENCH_DIR:-$root/target/iterate-bench}")"
sizes=("${@:-10000 100000 1000000}")
read -r -a sizes <<< "${sizes[*]}"
[ -f "$root/js/dist/node.js" ] || { echo "run.sh: build the package first: bash js/scripts/build.sh" >&2; exit 1; }
cargo build --quiet --manifest-path "$root/Cargo.toml" --release --features writer --example many_datasets
target="${CARGO_TARGET_DIR:-$root/target}"
for n in "${sizes[@]}"; do
  [ -f "$work/$n/data.atlas" ] || "$target/release/examples/many_datasets" "$work/$n" "$n"
done
node "$here/run.mjs" "$work" "${sizes[@]}"
