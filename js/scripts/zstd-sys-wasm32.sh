# shellcheck shell=bash
# Sourced by the wasm builds (js/scripts/build.sh, benches/decode/run.sh):
# sets `drop_shim_exports` (below) and `patched_zstd`, the cargo arguments
# that build against a copy of the
# zstd-sys crate Cargo.lock pins with libzstd-wasm32.patch applied (made under
# target/ when missing or stale), and puts the committed Cargo.lock back when
# the calling script exits, since building against a patched dependency
# rewrites its entry there. Native builds use zstd-sys as published.
#
# Why: libzstd turns its fast Huffman decoder off where size_t is 32 bits, as
# on wasm32, although wasm has native 64-bit integers and the fast loop keeps
# its bits in U64. The patch lets it run there; only the hand-over to the
# 32-bit bit stream at each stream's end is new code (docs/benchmarks.md,
# "libzstd's fast Huffman loop on wasm32": 1.25x on atlas-python's float blocks, same bytes).
zstd_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
zstd_patch="$zstd_root/js/scripts/libzstd-wasm32.patch"
zstd_version="$(grep -A1 '^name = "zstd-sys"$' "$zstd_root/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p')"
[ -n "$zstd_version" ] || { echo "zstd-sys-wasm32.sh: no zstd-sys in Cargo.lock" >&2; exit 1; }
# cargo metadata unpacks the crate into the registry if it is not there yet.
zstd_manifest="$(cd "$zstd_root" && cargo metadata --format-version 1 --locked |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const p = JSON.parse(s).packages.find((p) => p.name === "zstd-sys" && p.version === process.argv[1]);
    if (p) console.log(p.manifest_path);
  });' "$zstd_version")"
[ -n "$zstd_manifest" ] || { echo "zstd-sys-wasm32.sh: cargo metadata does not list zstd-sys $zstd_version" >&2; exit 1; }

zstd_copy="${CARGO_TARGET_DIR:-$zstd_root/target}/zstd-sys-wasm32/zstd-sys-$zstd_version"
zstd_stamp="$(sha256sum "$zstd_patch" | cut -d' ' -f1)"
if [ "$(cat "$zstd_copy/.atlas-patch" 2>/dev/null)" != "$zstd_stamp" ]; then
  rm -rf "$zstd_copy"
  mkdir -p "$(dirname "$zstd_copy")"
  cp -R "$(dirname "$zstd_manifest")" "$zstd_copy"
  chmod -R u+w "$zstd_copy"
  patch --quiet --forward --strip=1 --directory="$zstd_copy" < "$zstd_patch"
  echo "$zstd_stamp" > "$zstd_copy/.atlas-patch"
fi
patched_zstd=(--config "patch.crates-io.zstd-sys.path=\"$zstd_copy\"")

# wasm-opt's first flags for every module: zstd-sys exports the C allocator
# and libc shims it links libzstd against (`rust_zstd_wasm_shim_*`).
# JavaScript calls none of them, and as exports they kept code alive that
# nothing reaches, qsort's five sorts above all (for libzstd's dictionary
# builder). Dropped first, wasm-opt's -O3 then removes that code: 9 KB gzip
# off the core (docs/benchmarks.md, "zstd-sys's shim exports").
drop_shim_exports=(--remove-exports "--pass-arg=remove-exports@rust_zstd_wasm_shim_*")

zstd_lock_kept="$(mktemp)"
cp "$zstd_root/Cargo.lock" "$zstd_lock_kept"
trap 'cp "$zstd_lock_kept" "$zstd_root/Cargo.lock"; rm -f "$zstd_lock_kept"' EXIT
