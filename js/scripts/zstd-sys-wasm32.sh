#!/usr/bin/env bash
# Prints the path of a copy of the zstd-sys crate that Cargo.lock pins, with
# libzstd-wasm32.patch applied, making it under target/ when missing or stale.
# The wasm builds take it through `--config patch.crates-io.zstd-sys.path=…`
# (build.sh, benches/decode/run.sh); native builds use zstd-sys as published.
#
# Why: libzstd turns its fast Huffman decoder off where size_t is 32 bits, as
# on wasm32, although wasm has native 64-bit integers and the fast loop keeps
# its bits in U64. The patch lets it run there; only the hand-over to the
# 32-bit bit stream at each stream's end is new code (docs/benchmarks.md,
# "Session 12": 1.25x on atlas-python's float blocks, same bytes).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
patch_file="$root/js/scripts/libzstd-wasm32.patch"

version="$(grep -A1 '^name = "zstd-sys"$' "$root/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p')"
[ -n "$version" ] || { echo "zstd-sys-wasm32.sh: no zstd-sys in Cargo.lock" >&2; exit 1; }
# cargo metadata unpacks the crate into the registry if it is not there yet.
manifest="$(cd "$root" && cargo metadata --format-version 1 --locked |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const p = JSON.parse(s).packages.find((p) => p.name === "zstd-sys" && p.version === process.argv[1]);
    if (p) console.log(p.manifest_path);
  });' "$version")"
[ -n "$manifest" ] || { echo "zstd-sys-wasm32.sh: cargo metadata does not list zstd-sys $version" >&2; exit 1; }

dest="$target/zstd-sys-wasm32/zstd-sys-$version"
stamp="$(sha256sum "$patch_file" | cut -d' ' -f1)"
if [ "$(cat "$dest/.atlas-patch" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$dest"
  mkdir -p "$(dirname "$dest")"
  cp -R "$(dirname "$manifest")" "$dest"
  chmod -R u+w "$dest"
  patch --quiet --forward --strip=1 --directory="$dest" < "$patch_file"
  echo "$stamp" > "$dest/.atlas-patch"
fi
echo "$dest"
