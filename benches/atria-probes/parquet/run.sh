#!/usr/bin/env bash
# Prints the wasm32 size (raw, gzip -9, and after `wasm-opt -Oz` when
# WASM_OPT names it) of five cdylibs exporting `rows(ptr, len)`, each reading
# every row of a parquet file held in memory: a bare one (no reader), the
# `parquet` crate alone, atlas-wasm (feature atria) reading nothing, reading
# with its own `atria::parquet`, and with the `parquet` crate.
#   benches/atria-probes/parquet/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${CARGO_TARGET_DIR:-$here/../../../target}/atria-parquet-probe"
cd "$here"
crates="baseline crate_reader atlas_floor own_reader atlas_with_crate"
# shellcheck disable=SC2046
CARGO_TARGET_DIR="$target" cargo build --quiet --release --target wasm32-unknown-unknown $(printf -- '-p %s ' $crates)
for crate in $crates; do
  wasm="$target/wasm32-unknown-unknown/release/$crate.wasm"
  line="$(printf '%-13s raw %8d  gzip %7d' "$crate" "$(wc -c < "$wasm")" "$(gzip -9c "$wasm" | wc -c)")"
  if [ -n "${WASM_OPT:-}" ]; then
    "$WASM_OPT" -Oz --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int "$wasm" -o "$wasm.opt"
    line="$line  wasm-opt -Oz: raw $(wc -c < "$wasm.opt")  gzip $(gzip -9c "$wasm.opt" | wc -c)"
  fi
  echo "$line"
done
