#!/usr/bin/env bash
# Every test of the npm package, from a fresh checkout:
#   1. fixtures: atlas-rust (interop suite) and atlas-python collections, and
#      the Atria corpus (tests/atria/make_corpus.sh, the real Python writers)
#   2. the package: build (scripts/build.sh), `npm pack`, installed into a
#      scratch project as a user would install it
#   3. node --test on the installed package: HTTP (hostile servers too),
#      Blob/bytes/user sources, the Worker in workerd, headless Chromium,
#      one conformance suite over every source, forged collections, the
#      Atria entry over its corpus (HTTP in Node and Chromium, R2 in workerd),
#      and 10,000 calls of each kind leaving no heap behind (Node, Chromium)
#   4. the consumer apps (js/consumers/run.sh): Vite, webpack, an import-map
#      page, Node, Bun, a wrangler-style Worker; tsc --strict on the types
#   5. wasm-bindgen tests of the core in Node and in headless Chromium, as a
#      user runs them: `wasm-pack test --node` / `--headless --chrome` in
#      wasm-tests/ (fixtures committed there, no environment needed)
#
# Needs the tools docs/js-api.md lists under "Testing". Set ATLAS_FIXTURES to
# reuse fixtures already written; ATLAS_SKIP_WASM_PACK=1 skips step 5.
set -euo pipefail

js="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$js/.." && pwd)"
export ATLAS_FIXTURES="${ATLAS_FIXTURES:-$root/target/atlas-fixtures}"
step() { printf '\n== %s (%ss)\n' "$*" "$SECONDS"; }

if [ ! -f "$ATLAS_FIXTURES/every_dtype_zstd/expected.json" ]; then
  # A debug build: `cargo test --workspace` has built its dependencies already.
  step "writing fixtures into $ATLAS_FIXTURES"
  cargo run --quiet --manifest-path "$root/Cargo.toml" -p atlas-interop -- suite "$ATLAS_FIXTURES"
  cargo run --quiet --manifest-path "$root/Cargo.toml" -p atlas-interop -- python "$ATLAS_FIXTURES"
fi

# The Atria corpus for test/atria*.test.mjs (atlas-wasm/atria), written again
# when its generator changed. ATLAS_ATRIA_CORPUS names another place for it.
export ATLAS_ATRIA_CORPUS="${ATLAS_ATRIA_CORPUS:-$root/target/atria-corpus}"
if [ ! "$ATLAS_ATRIA_CORPUS/expected.json" -nt "$root/tests/atria/make_corpus.py" ] ||
   [ ! "$ATLAS_ATRIA_CORPUS/parquet/expected.json" -nt "$root/tests/atria/make_parquet.py" ] ||
   [ ! "$ATLAS_ATRIA_CORPUS/parquet/expected.json" -nt "$root/tests/atria/other_writers.py" ] ||
   [ ! "$ATLAS_ATRIA_CORPUS/expected.json" -nt "$root/tests/atria/requirements.txt" ]; then
  step "writing the Atria corpus into $ATLAS_ATRIA_CORPUS"
  bash "$root/tests/atria/make_corpus.sh" "$ATLAS_ATRIA_CORPUS"
fi

# Delta tables with deletion vectors, for test/atria-dv.test.mjs: committed
# in the repository, served from there.
export ATLAS_DELTA_DV="${ATLAS_DELTA_DV:-$root/tests/atria/delta-dv}"
# Caches written by Atria's own writer code, for test/atria-writers*.test.mjs:
# committed (tests/atria/make_atria_caches.sh regenerates them).
export ATLAS_ATRIA_WRITERS="${ATLAS_ATRIA_WRITERS:-$root/tests/atria/atria-caches}"

# Collections that lie, for test/forged.test.mjs (tests/reader_forged.rs
# writes them; cheap once `cargo test --all-features` has built it).
step "writing forged collections into $ATLAS_FIXTURES/forged"
cargo test --quiet --manifest-path "$root/Cargo.toml" --all-features --test reader_forged -- \
  --ignored --exact write_forged_fixtures >/dev/null

# Random collections, each written by atlas-rust and by our writer, with
# atlas-rust's dumps and windows, for test/differential.test.mjs (the
# differential run of interop/src/differential/; a disagreement fails here).
step "writing differential collections into $ATLAS_FIXTURES/differential"
cargo run --quiet --manifest-path "$root/Cargo.toml" -p atlas-interop -- diff --seed 7 --cases 60 \
  --js-out "$ATLAS_FIXTURES/differential" --fixtures "$ATLAS_FIXTURES/differential-found"

# 100,000 datasets with samples of what was written, for test/scale.test.mjs.
step "writing the 100,000-dataset collection into $ATLAS_FIXTURES/scale"
cargo test --quiet --manifest-path "$root/Cargo.toml" --all-features --test reader_scale -- \
  --ignored --exact write_scale_fixture >/dev/null

# zstd frames and what native libzstd makes of them, for
# test/zstd-frames.test.mjs (the wasm builds' libzstd is patched).
step "writing zstd frames into $ATLAS_FIXTURES/zstd-frames"
cargo test --quiet --manifest-path "$root/Cargo.toml" --all-features --test zstd_frames -- \
  --ignored --exact write_zstd_frames >/dev/null

if [ ! "$js/node_modules/.package-lock.json" -nt "$js/package-lock.json" ]; then
  step "npm ci"
  (cd "$js" && npm ci --no-audit --no-fund --loglevel=error)
fi

step "building the package"
bash "$js/scripts/build.sh"

step "installing the packed package into a scratch project"
scratch="$js/.pack-test"
rm -rf "$scratch"
mkdir -p "$scratch/test"
(cd "$js" && npm pack --silent --pack-destination "$scratch" >/dev/null)
echo '{ "private": true, "type": "module" }' > "$scratch/package.json"
(cd "$scratch" && npm install --no-save --no-audit --no-fund --loglevel=error ./atlas-wasm-*.tgz)
cp "$js"/test/*.mjs "$scratch/test/"
# The HTTP fault table both fault servers serve (test/conformance.test.mjs).
cp "$root/tests/http_faults.json" "$scratch/test/"
# The Worker example is read from the checkout; miniflare and playwright-core
# resolve from js/node_modules, one directory up.
export ATLAS_WORKER_EXAMPLE="$js/examples/worker/src/index.js"

step "node --test against the installed package"
(cd "$scratch" && node --test --test-concurrency=1 test/*.test.mjs)

step "consumer apps and type checks (js/consumers/run.sh)"
bash "$js/consumers/run.sh" "$(ls "$scratch"/atlas-wasm-*.tgz)"

if [ "${ATLAS_SKIP_WASM_PACK:-}" != 1 ]; then
  command -v wasm-pack >/dev/null || { echo "test.sh: wasm-pack is missing: cargo install wasm-pack" >&2; exit 1; }
  # The commands a user types in wasm-tests/ (README): the fixtures are
  # committed there and the browser binary is declared so in code. wasm-pack
  # takes chromedriver from CHROMEDRIVER, else looks on PATH.
  export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver || true)}"
  # A runner that loads no test, or fewer than exist, still says "ok": hold
  # the passed count of its "test result" lines to the tests in the sources.
  # Node runs the plain binaries; Chromium runs browser.rs, which includes
  # them and adds its own.
  tests_in() { cat "$@" | grep -cE '^[[:space:]]*#\[wasm_bindgen_test(\]|\()' || true; }
  all=$(tests_in "$root"/wasm-tests/tests/*.rs)
  browser_only=$(tests_in "$root"/wasm-tests/tests/browser.rs)
  wasm_pack_test() {
    local want="$1" log ran
    shift
    log="$(mktemp)"
    (cd "$root/wasm-tests" && "$@") 2>&1 | tee "$log"
    ran=$(sed -nE 's/.*test result: ok\. ([0-9]+) passed.*/\1/p' "$log" | awk '{ n += $1 } END { print n + 0 }')
    rm -f "$log"
    if [ "$ran" -ne "$want" ] || [ "$want" -eq 0 ]; then
      echo "test.sh: '$*' passed $ran wasm-bindgen tests; wasm-tests/tests/*.rs declares $want for it" >&2
      exit 1
    fi
  }
  step "wasm-pack test --node (in wasm-tests/)"
  wasm_pack_test $((all - browser_only)) wasm-pack test --node
  step "wasm-pack test --headless --chrome (in wasm-tests/)"
  wasm_pack_test "$all" wasm-pack test --headless --chrome
fi
step "done"
