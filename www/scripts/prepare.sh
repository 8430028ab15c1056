#!/usr/bin/env bash
# Makes everything the dashboard serves, from a fresh checkout:
#   1. the npm package atlas-wasm (js/scripts/build.sh -> js/dist/)
#   2. the dashboard's npm dependencies (npm ci in www/)
#   3. the sample collections (our writer, www/sample/make_sample.rs), when
#      missing or older than their generator
#   4. the dashboard itself (vite build -> www/dist/)
# Run by serve.sh and test.sh. ATLAS_SKIP_JS_BUILD=1 reuses js/dist/.
set -euo pipefail
www="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$www/.." && pwd)"
step() { printf '\n== www: %s (%ss)\n' "$*" "$SECONDS"; }

if [ "${ATLAS_SKIP_JS_BUILD:-}" = 1 ] && [ -f "$root/js/dist/browser.js" ]; then
  step "reusing js/dist/"
else
  step "building the npm package atlas-wasm"
  bash "$root/scripts/setup.sh" wasm
  bash "$root/js/scripts/build.sh"
fi

if [ ! "$www/node_modules/.package-lock.json" -nt "$www/package-lock.json" ]; then
  step "npm ci"
  (cd "$www" && npm ci --no-audit --no-fund --loglevel=error)
fi

out="$www/sample/out"
if [ ! "$out/ocean/data.atlas" -nt "$www/sample/make_sample.rs" ] || [ ! -f "$out/stations/data.atlas" ] || [ ! -f "$out/argo/data.atlas" ]; then
  step "writing the sample collections with atlas-wasm's writer"
  if ! grep -q 'www/sample/make_sample.rs' "$root/Cargo.toml"; then
    echo "Cargo.toml lacks the sample generator; add:" >&2
    printf '[[example]]\nname = "make_sample"\npath = "www/sample/make_sample.rs"\nrequired-features = ["writer"]\n' >&2
    exit 1
  fi
  rm -rf "$out"
  cargo run --quiet --release --manifest-path "$root/Cargo.toml" --features writer --example make_sample -- "$out"
fi

step "building the dashboard"
(cd "$www" && npx vite build --logLevel warn)
