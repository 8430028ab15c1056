#!/usr/bin/env bash
# The JavaScript read benchmark: atlas-wasm, zarrita.js, hyparquet (Node) and
# atlas-rust 0.17.2 (native) reading one workload over one local range server,
# in the same run. docs/benchmarks.md explains what it measures.
#
#   bash benches/js/run.sh                      # 3 runs, 0 and 20 ms
#   ATLAS_BENCH_RUNS=5 ATLAS_BENCH_LATENCY=20 bash benches/js/run.sh
#
# Then W2 in headless Chromium (browser.mjs) when Debian chromium is there.
#
# Needs python3 with atlas-python 0.17.2, xarray, netCDF4, zarr (v3) and
# pyarrow; Node 20; cargo; and js/dist (bash js/scripts/build.sh) unless
# ATLAS_WASM_ENTRY points at another build of the package's node entry.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(realpath -m "${ATLAS_BENCH_DIR:-$root/target/js-bench}")"
target="${CARGO_TARGET_DIR:-$root/target}"

[ -f "$work/workload/expected.json" ] || python3 "$here/make_workload.py" "$work/workload"
if [ ! "$here/node_modules/.package-lock.json" -nt "$here/package-lock.json" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ -z "${ATLAS_WASM_ENTRY:-}" ] && [ ! -f "$root/js/dist/node.js" ]; then
  echo "run.sh: build the package first: bash js/scripts/build.sh" >&2
  exit 1
fi
CARGO_TARGET_DIR="$target" cargo build --release --quiet --manifest-path "$here/native/Cargo.toml"

node "$here/run.mjs" "$work/workload" "$target/release/atlas-rust-reader" \
  --runs "${ATLAS_BENCH_RUNS:-3}" --latency "${ATLAS_BENCH_LATENCY:-0,20}" \
  --readers "${ATLAS_BENCH_READERS:-atlas-wasm,zarrita,hyparquet,atlas-rust}" --out "$work/results.json"

# W2 in headless Chromium, with and without the decode pool (Debian chromium).
if [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  node "$here/browser.mjs" "$work/workload" --runs "${ATLAS_BENCH_RUNS:-3}" --latency 20
fi
