// Times `decodeBlock` of one built variant of the decode module on the zstd
// blocks benches/decode/run.sh extracted, in this Node process. Prints one
// JSON line: the option, MB/s of decoded output (best of 5 passes after a
// warm-up), the .wasm size raw and gzip -9, and a checksum of the output so
// that every variant can be seen to decode the same bytes.
//
//   node js/scripts/decode-bench.mjs VARIANT_DIR BLOCKS_DIR LABEL
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [dir, blocksDir, label] = process.argv.slice(2);
const glue = await import(pathToFileURL(resolve(dir, "atlas_decode.js")).href);
const wasm = readFileSync(join(dir, "atlas_decode_bg.wasm"));
glue.initSync({ module: new WebAssembly.Module(wasm) });

const blocks = JSON.parse(readFileSync(join(blocksDir, "blocks.json"), "utf8")).map((b) => ({
  bytes: new Uint8Array(readFileSync(join(blocksDir, b.file))),
  size: b.uncompressed,
}));
const total = blocks.reduce((sum, b) => sum + b.size, 0);

// The first call pays for V8's first compile tier: warm up, then take the best pass.
let checksum = 0;
for (const { bytes, size } of blocks) {
  const out = glue.decodeBlock("zstd", bytes, size, size);
  for (let i = 0; i < out.length; i += 64) checksum = (checksum * 31 + out[i]) >>> 0;
}
let best = Infinity;
for (let pass = 0; pass < 5; pass++) {
  const started = performance.now();
  for (const { bytes, size } of blocks) glue.decodeBlock("zstd", bytes, size, size);
  best = Math.min(best, (performance.now() - started) / 1000);
}
console.log(
  JSON.stringify({
    option: label,
    blocks: blocks.length,
    bytes: total,
    seconds: +best.toFixed(4),
    mbps: Math.round(total / best / 1e6),
    wasmBytes: wasm.length,
    gzipBytes: gzipSync(wasm, { level: 9 }).length,
    checksum,
  }),
);
