// Times the parquet page decoders in wasm under Node: each codec's pages
// (make_payloads.py) decoded by atria::parquet's decoder and by the former
// one, alternately, in the same process; prints MB/s of output (the median
// and the best of the rounds) and the ratio of the medians. Every page's
// output is first checked equal between the two (by CRC-32).
//   node run.mjs MODULE.wasm PAYLOAD_DIR [ROUNDS]
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [wasmPath, payloadDir, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 9);
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath));
const wasm = instance.exports;

/** The pages of one payload file, each copied once into the module's memory. */
function load(codec) {
  const bytes = readFileSync(join(payloadDir, `${codec}.bin`));
  const pages = [];
  for (let pos = 0; pos < bytes.length; ) {
    const packed = bytes.readUInt32LE(pos);
    const size = bytes.readUInt32LE(pos + 4);
    const ptr = wasm.alloc(packed);
    new Uint8Array(wasm.memory.buffer, ptr, packed).set(bytes.subarray(pos + 8, pos + 8 + packed));
    pages.push({ ptr, packed, size });
    pos += 8 + packed;
  }
  return pages;
}

function decodeAll(decode, pages) {
  const start = process.hrtime.bigint();
  for (const p of pages) {
    if (decode(p.ptr, p.packed, p.size, 0) !== p.size) throw new Error(`a page of ${p.size} bytes failed to decode`);
  }
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const mbps = (bytes, seconds) => bytes / 1e6 / seconds;

function compare(codec, peers) {
  const pages = load(codec);
  const raw = pages.reduce((n, p) => n + p.size, 0);
  const packed = pages.reduce((n, p) => n + p.packed, 0);
  for (const [i, p] of pages.entries()) {
    const crcs = peers.map(([, decode]) => decode(p.ptr, p.packed, p.size, 1));
    if (crcs.some((c) => c !== crcs[0]) || crcs[0] === 0xffffffff) throw new Error(`${codec} page ${i}: outputs differ or fail (${crcs})`);
  }
  const times = peers.map(() => []);
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so neither always runs on a warmer heap.
    const order = r % 2 ? [...peers.keys()].reverse() : [...peers.keys()];
    for (const k of order) times[k].push(decodeAll(peers[k][1], pages));
  }
  console.log(`${codec}: ${pages.length} pages, ${packed.toLocaleString("en")} bytes -> ${raw.toLocaleString("en")}, ${rounds} rounds`);
  const medians = times.map((t) => mbps(raw, median(t)));
  peers.forEach(([name], k) => {
    const best = mbps(raw, Math.min(...times[k]));
    console.log(`  ${name.padEnd(42)} ${medians[k].toFixed(1).padStart(7)} MB/s median, ${best.toFixed(1).padStart(7)} best`);
  });
  console.log(`  ratio (${peers[0][0]} / ${peers[1][0]}, medians): ${(medians[0] / medians[1]).toFixed(2)}x`);
  return pages;
}

compare("snappy", [
  ["atria::parquet (snap)", wasm.snappy_crate],
  ["former hand-written decoder", wasm.snappy_former],
]);
const gzipPages = compare("gzip", [
  ["atria::parquet (miniz_oxide)", wasm.gzip_crate],
  ["former hand-written decoder", wasm.gzip_former],
]);

// The CRC-32 alone, over the gzip pages' bytes (any bytes do).
const crcPeers = [
  ["eight bytes a step (src/atria/crc32.rs)", wasm.crc_sliced],
  ["a byte a step (former table)", wasm.crc_bytewise],
  ["a bit a step (former gzip's)", wasm.crc_bitwise],
];
const total = gzipPages.reduce((n, p) => n + p.packed, 0);
const crcTimes = crcPeers.map(() => []);
for (let r = 0; r < rounds; r++) {
  crcPeers.forEach(([, crc], k) => {
    const start = process.hrtime.bigint();
    const crcs = gzipPages.map((p) => crc(p.ptr, p.packed));
    crcTimes[k].push(Number(process.hrtime.bigint() - start) / 1e9);
    if (k > 0 && crcs.some((c, i) => c !== crcPeers[0][1](gzipPages[i].ptr, gzipPages[i].packed))) throw new Error("the CRC-32s differ");
  });
}
console.log(`crc-32: ${total.toLocaleString("en")} bytes, ${rounds} rounds`);
const crcMedians = crcTimes.map((t) => mbps(total, median(t)));
crcPeers.forEach(([name], k) => {
  const ratio = k ? `  (${(crcMedians[0] / crcMedians[k]).toFixed(2)}x slower)` : "";
  console.log(`  ${name.padEnd(42)} ${crcMedians[k].toFixed(1).padStart(7)} MB/s median${ratio}`);
});
