#!/usr/bin/env bash
# zstd block decoding in wasm, each build option against native ruzstd and
# libzstd on the same blocks, in one run (docs/benchmarks.md, "Block decoding").
#
#   bash benches/decode/run.sh                  # every option
#   ATLAS_BENCH_OPTIONS="ruzstd-z libzstd-3" bash benches/decode/run.sh
#
# Makes 1,000 NetCDF files of float32 [90, 180] temperature fields, turns them
# into a collection with atlas-python's `atlas create`, extracts its zstd
# blocks (benches/decode/native, which also times the native
# decoders), then for each option builds the decode module (crate
# bindings/decode: `decodeBlock` alone, the decoder the npm package's decode
# pool runs), runs wasm-opt from npm's binaryen and times `decodeBlock` in
# Node. Needs clang (libzstd for wasm32), atlas-python, `npm ci` in js/.
# Results: $work/results.jsonl.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
work="${ATLAS_BENCH_DIR:-$root/target/decode-bench}"
target="${CARGO_TARGET_DIR:-$root/target}"
wasm_opt="$root/js/node_modules/.bin/wasm-opt"
[ -x "$wasm_opt" ] || { echo "run 'npm ci' in js/ first (binaryen's wasm-opt)" >&2; exit 1; }
mkdir -p "$work"

if [ ! -f "$work/atlas/data.atlas" ]; then
  python3 benches/decode/make_netcdf.py "$work/nc"
  atlas create "$work/nc" "$work/atlas" -q
fi

echo "== native: extracting the blocks, timing ruzstd and libzstd" >&2
CARGO_TARGET_DIR="$target" cargo run --release --quiet --manifest-path benches/decode/native/Cargo.toml -- "$work/atlas" temperature "$work/blocks" | tee "$work/results.jsonl"

# name | cargo arguments | wasm-opt levels | C flags for libzstd. `shipped`
# is libzstd as js/scripts/build.sh builds it for every module (C at 3, one
# Huffman and one sequence decoder, the fast Huffman loop patched in);
# `libzstd-3` all at 3, as the decode
# module's profile builds it without those flags; `libzstd-z` the core's
# build before it kept one Huffman and one sequence decoder.
z='--config profile.wasm-release.opt-level="z"'
c3='--config profile.wasm-release.package.zstd-sys.opt-level=3'
thin='-DHUF_FORCE_DECOMPRESS_X1=1 -DZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT=1'
# `shipped` also runs libzstd's fast Huffman loop (js/scripts/libzstd-wasm32.patch);
# `unpatched` is the same build without it; `both-decoders` is `shipped`
# with both Huffman decoders and both sequence decoders, `both-huffman`
# with both Huffman decoders and the short sequence decoder alone.
source js/scripts/zstd-sys-wasm32.sh
patched="${patched_zstd[*]}" # split again below, as every option's arguments are
options=(
  "ruzstd-z|$z|-Oz -O3|"
  "ruzstd-3|--config profile.wasm-release.opt-level=3|-O3|"
  "libzstd-z|--features libzstd $z --config profile.wasm-release.package.zstd-sys.opt-level=\"z\"|-Oz -O3|"
  "libzstd-z-c3|--features libzstd $z $c3|-O3|"
  "shipped|--features libzstd $z $c3 $patched|-O3|$thin -DZSTD_STRIP_ERROR_STRINGS=1"
  "unpatched|--features libzstd $z $c3|-O3|$thin"
  "both-decoders|--features libzstd $z $c3 $patched|-O3|-DZSTD_STRIP_ERROR_STRINGS=1"
  "both-huffman|--features libzstd $z $c3 $patched|-O3|-DZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT=1 -DZSTD_STRIP_ERROR_STRINGS=1"
  "libzstd-3|--features libzstd --config profile.wasm-release.opt-level=3 $c3|-O3 -Oz|"
)
wanted="${ATLAS_BENCH_OPTIONS:-}"
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)

for option in "${options[@]}"; do
  IFS='|' read -r name cargo_args levels cflags <<< "$option"
  [ -z "$wanted" ] || [[ " $wanted " == *" $name "* ]] || continue
  echo "== $name: cargo build $cargo_args ${cflags:+(C: $cflags)}" >&2
  # shellcheck disable=SC2086 # the arguments are split on purpose
  CFLAGS_wasm32_unknown_unknown="$cflags" cargo build --quiet -p atlas-wasm-decode --lib --target wasm32-unknown-unknown --profile wasm-release $cargo_args
  out="$work/wasm/$name"
  rm -rf "$out" && mkdir -p "$out"
  wasm-bindgen --target web --out-dir "$out" --out-name atlas_decode \
    "$target/wasm32-unknown-unknown/wasm-release/atlas_wasm_decode.wasm"
  mv "$out/atlas_decode_bg.wasm" "$out/unoptimised.wasm"
  for level in $levels; do
    converge=(); [ "$level" = -O3 ] || converge=(--converge)
    "$wasm_opt" "${drop_shim_exports[@]}" "$level" "${converge[@]}" "${features[@]}" "$out/unoptimised.wasm" -o "$out/atlas_decode_bg.wasm"
    node js/scripts/decode-bench.mjs "$out" "$work/blocks" "wasm $name, wasm-opt $level" | tee -a "$work/results.jsonl"
  done
done

node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const libzstd = rows.find((r) => r.option.startsWith("native libzstd"));
console.log("| option | MB/s | vs native libzstd | .wasm gzip -9 |\n|---|---:|---:|---:|");
for (const r of rows) console.log(`| ${r.option} | ${r.mbps} | ${(r.mbps / libzstd.mbps).toFixed(2)}x | ${r.gzipBytes ? (r.gzipBytes / 1024).toFixed(1) + " KiB" : "-"} |`);
' "$work/results.jsonl"
