#!/usr/bin/env bash
# Prints the wasm32 size (raw and gzip -9) of five cdylibs that each export
# `list(ptr, len)`: a bare one; the `tar` crate listing a TAR in memory; the
# same two again linked with atlas-wasm (feature atria); and atlas-wasm's
# own `TarShards::index` listing it. The differences are what each parser
# adds (no wasm-opt, no wasm-bindgen pass).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${CARGO_TARGET_DIR:-$here/../../../target}/atria-size-probe"
cd "$here"
CARGO_TARGET_DIR="$target" cargo build --quiet --release --target wasm32-unknown-unknown
for crate in baseline with_tar atlas_floor atlas_with_tar with_atria; do
  wasm="$target/wasm32-unknown-unknown/release/$crate.wasm"
  printf '%-15s raw %8d  gzip %7d\n' "$crate" "$(wc -c < "$wasm")" "$(gzip -9c "$wasm" | wc -c)"
done
