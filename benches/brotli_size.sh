#!/usr/bin/env bash
# What a BROTLI decoder would add to a wasm module: two scratch crates built
# for wasm32 at the Atria module's settings (opt-level s, LTO), one calling
# brotli-decompressor on its input, one copying it; prints raw and gzip -9
# sizes and the difference. Usage: benches/brotli_size.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${CARGO_TARGET_DIR:-$root/target}/brotli-size"
rm -rf "$work"
for crate in with without; do
  mkdir -p "$work/$crate/src"
  dependency=""
  body='let ok = std::io::Read::read_to_end(&mut &input[..], &mut out).is_ok();'
  if [ "$crate" = with ]; then
    dependency='brotli-decompressor = { version = "=5.0.3", default-features = false, features = ["std"] }'
    body='let ok = brotli_decompressor::BrotliDecompress(&mut &input[..], &mut out).is_ok();'
  fi
  cat > "$work/$crate/Cargo.toml" <<TOML
[package]
name = "brotli-size-$crate"
version = "0.0.0"
edition = "2021"
[workspace]
[lib]
crate-type = ["cdylib"]
[dependencies]
$dependency
[profile.release]
opt-level = "s"
lto = true
codegen-units = 1
panic = "abort"
TOML
  cat > "$work/$crate/src/lib.rs" <<RUST
#[no_mangle]
pub extern "C" fn run(ptr: *const u8, len: usize) -> usize {
    let input = unsafe { std::slice::from_raw_parts(ptr, len) };
    let mut out = Vec::new();
    $body
    out.len() + ok as usize
}
RUST
  cargo build -q --release --target wasm32-unknown-unknown --manifest-path "$work/$crate/Cargo.toml"
done
size() {
  local f="$work/$1/target/wasm32-unknown-unknown/release/brotli_size_$1.wasm"
  echo "$(stat -c %s "$f") $(gzip -9c "$f" | wc -c)"
}
read -r with_raw with_gz <<<"$(size with)"
read -r without_raw without_gz <<<"$(size without)"
printf 'with brotli-decompressor: %s raw, %s gzip\nwithout:                  %s raw, %s gzip\nthe decoder adds:         %s raw, %s gzip\n' \
  "$with_raw" "$with_gz" "$without_raw" "$without_gz" $((with_raw - without_raw)) $((with_gz - without_gz))
