#!/usr/bin/env bash
# Runs every test: native core and interop (Rust), then the wasm build and
# the npm package (Node, headless Chromium, workerd). Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh all

# Interop tests must not skip the atlas-python fixtures here.
export ATLAS_REQUIRE_PYTHON=1

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== clippy, every target and feature, warnings denied"
cargo clippy --workspace --all-features --all-targets -- -D warnings

echo "== clippy for the feature sets users build alone (what --all-features hides: code only one feature uses)"
for features in "" writer cli; do
  cargo clippy --lib --bins --features "$features" -- -D warnings
done

echo "== rustdoc, warnings denied (every public item documented, links resolve)"
RUSTDOCFLAGS="-D warnings" cargo doc --all-features --no-deps --lib

echo "== clippy for wasm32-unknown-unknown: the core (with and without Atria) and each module's crate"
cargo clippy -p atlas-wasm --lib --target wasm32-unknown-unknown -- -D warnings
cargo clippy -p atlas-wasm --lib --target wasm32-unknown-unknown --features atria -- -D warnings
for package in atlas-wasm-js atlas-wasm-collection atlas-wasm-atria atlas-wasm-decode; do
  cargo clippy -p "$package" --lib --target wasm32-unknown-unknown -- -D warnings
done

echo "== native tests and doc tests (core, interop with atlas-rust and atlas-python, writer, CLI)"
cargo test --workspace --all-features

echo "== fuzz smoke: every cargo-fuzz target for ${FUZZ_SMOKE_SECONDS:-10} s on its corpus (fuzz/smoke.sh)"
bash fuzz/smoke.sh

echo "== Dask and Ray recipes: parts built as cluster tasks, merged on the driver (uses target/debug/atlas)"
bash examples/run_tests.sh

echo "== wasm and npm package tests (Node, workerd, headless Chromium, wasm-bindgen)"
bash js/scripts/test.sh

echo "== dashboard end-to-end tests in headless Chromium"
ATLAS_SKIP_JS_BUILD=1 bash www/scripts/test.sh
