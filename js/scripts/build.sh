#!/usr/bin/env bash
# Builds js/dist/: the release .wasm with libzstd's decoder (feature
# `libzstd`), its wasm-bindgen glue (--target web), wasm-opt -O3 from npm's
# binaryen (Debian's binaryen corrupts this output), and the facade. Prints
# the gzipped size of the .wasm, which must stay <= 180 KB (180,000 bytes).
# Each module is a crate of its own under bindings/ that adds what it
# exports: the core (bindings/collection), the decode pool's
# (bindings/decode) and the entry `atlas-wasm/atria`'s (bindings/atria,
# atria_wasm_bg.wasm, so that the core's does not grow); the last two are
# printed, not budgeted (docs/atria.md).
# Why libzstd, Rust at opt-level "z" and libzstd at 3 (Cargo.toml) and -O3:
# docs/benchmarks.md, "Block decoding in wasm" and "Why Rust at opt-level "z"".
#
# Needs: rustup target wasm32-unknown-unknown, Debian clang and patch
# (libzstd for wasm32, js/scripts/zstd-sys-wasm32.sh), wasm-bindgen-cli of
# the exact version Cargo.lock pins, and `npm ci` run in js/ (for binaryen).
set -euo pipefail

js="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$js/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"

want="$(grep -A1 '^name = "wasm-bindgen"$' "$root/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p')"
have="$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2 || true)"
if [ "$have" != "$want" ]; then
  echo "build.sh: wasm-bindgen $want is needed (found '${have:-none}'): cargo install wasm-bindgen-cli --version $want" >&2
  exit 1
fi
wasm_opt="$js/node_modules/.bin/wasm-opt"
[ -x "$wasm_opt" ] || { echo "build.sh: run 'npm ci' in js/ first (for binaryen's wasm-opt)" >&2; exit 1; }

command -v clang >/dev/null || { echo "build.sh: clang is needed to compile libzstd for wasm32: apt-get install clang" >&2; exit 1; }
command -v patch >/dev/null || { echo "build.sh: patch is needed to patch libzstd for wasm32: apt-get install patch" >&2; exit 1; }

# libzstd's decoder in every module: one Huffman decoder (X1) and one
# sequence decoder (the short one; the long one's prefetching buys nothing in
# wasm). Smaller, and no slower on these blocks (docs/benchmarks.md, "One Huffman and one sequence decoder").
# Without its error strings, which the core's budget needs for the fast loop
# below: src/format/codec.rs names libzstd's errors itself.
export CFLAGS_wasm32_unknown_unknown="-DHUF_FORCE_DECOMPRESS_X1=1 -DZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT=1 -DZSTD_STRIP_ERROR_STRINGS=1"

# ...and its fast Huffman loop, which libzstd keeps to 64-bit size_t
# (zstd-sys-wasm32.sh says why, and sets `patched_zstd` and `drop_shim_exports`).
source "$js/scripts/zstd-sys-wasm32.sh"

# Panic locations carry source paths: keep the builder's home and checkout
# out of the shipped module (and its bytes out of the size budget).
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--remap-path-prefix=$registry=crates --remap-path-prefix=$root=atlas-wasm" \
  cargo build --manifest-path "$root/Cargo.toml" -p atlas-wasm-collection --lib --target wasm32-unknown-unknown --profile wasm-release --features libzstd "${patched_zstd[@]}"
rm -rf "$js/pkg" "$js/dist"
wasm-bindgen --target web --out-dir "$js/pkg" --out-name atlas_wasm \
  "$target/wasm32-unknown-unknown/wasm-release/atlas_wasm_collection.wasm"

mkdir -p "$js/dist"
# Rust's wasm32 target emits these proposals by default; wasm-opt must be told.
# -ocimfs=200 inlines only small functions with one caller (default 1500
# bytes): 4 KB gzip less, and the same speed or better, a cold first read
# faster (less code for V8 to compile); --low-memory-unused is safe for Rust's
# layout (docs/benchmarks.md, "The wasm-opt flags").
# Each module's flags follow `drop_shim_exports` (zstd-sys-wasm32.sh says why).
# The core at -Os, and with -ocimfs=20: the module split into crates
# (bindings/) grew it 3.8 KB gzip at 200, which inlining less wins back
# (docs/benchmarks.md, "The wasm-opt flags"); the decode and Atria modules,
# not budgeted, at -O3 -ocimfs=200.
wasm_opt_flags=(--low-memory-unused --converge --strip-producers --strip-target-features
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
"$wasm_opt" "${drop_shim_exports[@]}" -Os -ocimfs=20 "${wasm_opt_flags[@]}" "$js/pkg/atlas_wasm_bg.wasm" -o "$js/dist/atlas_wasm_bg.wasm"
cp "$js/pkg/atlas_wasm.js" "$js"/src/*.js "$js"/src/*.d.ts "$js/dist/"

raw=$(wc -c < "$js/dist/atlas_wasm_bg.wasm")
gz=$(gzip -9 -c "$js/dist/atlas_wasm_bg.wasm" | wc -c)
echo "atlas_wasm_bg.wasm: $raw bytes, $gz bytes gzip -9 ($(( (gz + 1023) / 1024 )) KiB)"
if [ "$gz" -gt 180000 ]; then
  echo "build.sh: the .wasm is over its 180 KB (180,000 bytes) gzip budget (docs/benchmarks.md)" >&2
  exit 1
fi

# The decode module: only `decodeBlock`, for the decode pool, built for speed
# (profile wasm-decode, opt-level 3; docs/benchmarks.md, "The decode module").
# Not budgeted: it loads when a collection's first read starts, not at open.
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--remap-path-prefix=$registry=crates --remap-path-prefix=$root=atlas-wasm" \
  cargo build --manifest-path "$root/Cargo.toml" -p atlas-wasm-decode --lib --target wasm32-unknown-unknown --profile wasm-decode --features libzstd "${patched_zstd[@]}"
wasm-bindgen --target web --out-dir "$js/pkg/decode" --out-name atlas_decode \
  "$target/wasm32-unknown-unknown/wasm-decode/atlas_wasm_decode.wasm"
"$wasm_opt" "${drop_shim_exports[@]}" -O3 "${wasm_opt_flags[@]}" "$js/pkg/decode/atlas_decode_bg.wasm" -o "$js/dist/atlas_decode_bg.wasm"
cp "$js/pkg/decode/atlas_decode.js" "$js/dist/"
raw=$(wc -c < "$js/dist/atlas_decode_bg.wasm")
gz=$(gzip -9 -c "$js/dist/atlas_decode_bg.wasm" | wc -c)
echo "atlas_decode_bg.wasm (the decode pool's): $raw bytes, $gz bytes gzip -9 ($(( (gz + 1023) / 1024 )) KiB)"

# The Atria module.
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--remap-path-prefix=$registry=crates --remap-path-prefix=$root=atlas-wasm" \
  cargo build --manifest-path "$root/Cargo.toml" -p atlas-wasm-atria --lib --target wasm32-unknown-unknown --profile wasm-release --features libzstd "${patched_zstd[@]}"
wasm-bindgen --target web --out-dir "$js/pkg/atria" --out-name atria_wasm \
  "$target/wasm32-unknown-unknown/wasm-release/atlas_wasm_atria.wasm"
"$wasm_opt" "${drop_shim_exports[@]}" -O3 -ocimfs=200 "${wasm_opt_flags[@]}" "$js/pkg/atria/atria_wasm_bg.wasm" -o "$js/dist/atria_wasm_bg.wasm"
cp "$js/pkg/atria/atria_wasm.js" "$js/dist/"
raw=$(wc -c < "$js/dist/atria_wasm_bg.wasm")
gz=$(gzip -9 -c "$js/dist/atria_wasm_bg.wasm" | wc -c)
echo "atria_wasm_bg.wasm (atlas-wasm/atria): $raw bytes, $gz bytes gzip -9 ($(( (gz + 1023) / 1024 )) KiB)"
