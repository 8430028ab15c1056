#!/usr/bin/env bash
# Open and one dataset's first read at 1,000 to 1,000,000 datasets, in one
# run: our native reader and atlas-rust 0.17.2 (native.rs, which also writes
# the collections with both writers), then atlas-wasm over HTTP in Node and
# in headless Chromium (benches/js/scale.mjs). docs/benchmarks.md, "A
# million datasets", explains what it measures.
#
#   bash benches/scale/run.sh                                  # 1k, 10k, 100k, 1M; 3 runs
#   ATLAS_SCALE_SIZES=1000,1000000 ATLAS_BENCH_RUNS=5 bash benches/scale/run.sh
#
# Needs cargo, Node 20, Debian chromium, and js/dist (bash
# js/scripts/build.sh). Writing the 1M collections takes a few minutes and
# ~1.2 GB of disk under target/tmp/scale-v1/.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
sizes="${ATLAS_SCALE_SIZES:-1000,10000,100000,1000000}"

if [ -z "${ATLAS_WASM_DIST:-}" ] && [ ! -f "$root/js/dist/node.js" ]; then
  echo "run.sh: build the package first: bash js/scripts/build.sh" >&2
  exit 1
fi
if [ ! "$root/benches/js/node_modules/.package-lock.json" -nt "$root/benches/js/package-lock.json" ]; then
  (cd "$root/benches/js" && npm ci --no-audit --no-fund --loglevel=error)
fi

echo "#### Natively, from the local file"
echo
(cd "$root" && ATLAS_SCALE_SIZES="$sizes" cargo bench --quiet --features writer --bench scale)
echo
node "$root/benches/js/scale.mjs" --sizes "$sizes" --runs "${ATLAS_BENCH_RUNS:-3}"
