#!/usr/bin/env bash
# The consumer apps of js/consumers/: each installs the packed package as a
# user would and reads a real collection where its users run it — a Vite
# app (built, and its dev server) and a webpack 5 app in headless Chromium,
# a plain page with an import map, Node, Bun, a Worker bundled as wrangler
# bundles it in workerd — and types/app.ts is compiled with tsc --strict.
#
#   bash js/consumers/run.sh [atlas-wasm-X.Y.Z.tgz]
#
# Without a tarball, packs js/ as it is (build it first: js/scripts/build.sh).
# ATLAS_FIXTURES names the fixture directory (default target/atlas-fixtures,
# which js/scripts/test.sh writes, else wasm-tests/fixtures);
# ATLAS_CONSUMERS=vite,Node runs only the apps whose names start so. The tools come from this directory's
# package-lock.json (installed once; offline from the npm cache after that).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
js="$(cd "$here/.." && pwd)"
# From a fresh checkout, the copy committed for the wasm tests serves.
if [ -z "${ATLAS_FIXTURES:-}" ]; then
  ATLAS_FIXTURES="$js/../target/atlas-fixtures"
  [ -f "$ATLAS_FIXTURES/every_dtype_zstd/expected.json" ] || ATLAS_FIXTURES="$js/../wasm-tests/fixtures"
fi
export ATLAS_FIXTURES
if [ ! -f "$ATLAS_FIXTURES/every_dtype_zstd/expected.json" ]; then
  echo "run.sh: no every_dtype_zstd fixture in $ATLAS_FIXTURES" >&2
  exit 1
fi
if [ ! "$here/node_modules/.package-lock.json" -nt "$here/package-lock.json" ]; then
  # `npm install` honours the lock like `npm ci`, but lets an optional
  # dependency the registry does not have (vite's Windows-only
  # napi-windows-process-start-time) go missing, where `npm ci` refuses.
  (cd "$here" && npm install --no-audit --no-fund --prefer-offline --loglevel=error)
fi

tarball="${1:-}"
if [ -z "$tarball" ]; then
  packed="$(mktemp -d)"
  trap 'rm -rf "$packed"' EXIT
  (cd "$js" && npm pack --silent --pack-destination "$packed" >/dev/null)
  tarball="$(ls "$packed"/atlas-wasm-*.tgz)"
fi
node "$here/run.mjs" "$tarball"
