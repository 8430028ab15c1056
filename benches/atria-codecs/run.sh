#!/usr/bin/env bash
# Parquet's SNAPPY and GZIP page decoders in wasm: atria::parquet's (snap,
# miniz_oxide) against the former hand-written ones, timed under Node in the
# same run (run.mjs), and the gzip -9 size each codec's decoder brings to a
# module, built at the Atria module's settings (opt-level "z", LTO, then
# build.sh's wasm-opt flags).
#   benches/atria-codecs/run.sh [ROUNDS]
# Needs the wasm32 target, `npm ci` run in js/ (binaryen's wasm-opt), and a
# python with pyarrow: PYTHON, else the venv tests/atria/make_corpus.sh
# makes under the target directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$target/atria-codecs"
python="${PYTHON:-$target/atria-venv/bin/python}"
wasm_opt="$root/js/node_modules/.bin/wasm-opt"
[ -x "$wasm_opt" ] || { echo "run.sh: run 'npm ci' in js/ first (for binaryen's wasm-opt)" >&2; exit 1; }
"$python" -c 'import pyarrow' 2>/dev/null ||
  { echo "run.sh: $python has no pyarrow: run tests/atria/make_corpus.sh once, or set PYTHON" >&2; exit 1; }

mkdir -p "$work"
if [ ! "$work/payloads/gzip.bin" -nt "$here/make_payloads.py" ]; then
  "$python" "$here/make_payloads.py" "$work/payloads"
fi

# As js/scripts/build.sh runs wasm-opt on the Atria module.
wasm_opt_flags=(-O3 -ocimfs=200 --low-memory-unused --converge --strip-producers --strip-target-features
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
build() { # NAME FEATURES: builds the module with FEATURES into $work/NAME.wasm
  cargo build --quiet --release --target wasm32-unknown-unknown --manifest-path "$here/Cargo.toml" \
    --target-dir "$work/cargo" --features "$2"
  "$wasm_opt" "${wasm_opt_flags[@]}" "$work/cargo/wasm32-unknown-unknown/release/atria_codecs.wasm" -o "$work/$1.wasm"
}

build speed former-snappy,former-gzip,crate-snappy,crate-gzip,crc-peers
node "$here/run.mjs" "$work/speed.wasm" "$work/payloads" "${1:-9}"

echo "module size, gzip -9 (raw): one snappy and one gzip decoder, and src/atria/crc32.rs, in each:"
build formers former-snappy,former-gzip
build snap crate-snappy,former-gzip
build miniz former-snappy,crate-gzip
build crates crate-snappy,crate-gzip
gz() { gzip -9c "$work/$1.wasm" | wc -c; }
raw() { wc -c < "$work/$1.wasm"; }
for name in formers snap miniz crates; do
  printf '  %-8s %7d (%d raw)  %+6d gzip against formers\n' "$name" "$(gz $name)" "$(raw $name)" $(( $(gz $name) - $(gz formers) ))
done
