#!/usr/bin/env bash
# CPU per window read by block size (docs/benchmarks.md, "CPU per window
# read"): the benchmark workload as atlas-python wrote it (8 MiB blocks) and
# `atlas rewrite` copies with 1 MiB, `worker` (256 KiB) and 64 KiB blocks.
# Needs the workload of run.sh and js/dist (bash js/scripts/build.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(realpath -m "${ATLAS_BENCH_DIR:-$root/target/js-bench}")"
[ -f "$work/workload/expected.json" ] || python3 "$here/make_workload.py" "$work/workload"
cargo build --quiet --manifest-path "$root/Cargo.toml" --release --features cli --bin atlas
target="${CARGO_TARGET_DIR:-$root/target}"
for size in 1MiB worker 64KiB; do
  rm -rf "$work/blocks/$size"
  "$target/release/atlas" rewrite "$work/workload/atlas" "$work/blocks/$size" --block-size "$size" >/dev/null
done
node "$here/window_cpu.mjs" "8MiB=$work/workload/atlas" "1MiB=$work/blocks/1MiB" \
  "worker (256KiB)=$work/blocks/worker" "64KiB=$work/blocks/64KiB"
