// One run of the iterate memory benchmark (benches/iterate/run.sh), in a
// fresh process: opens COLLECTION_URL and reads `temperature` of every
// dataset either with `atlas.iterate` (batches of BATCH) or with one
// `readAcross` (the peer: the whole answer at once). Checks every value
// (dataset ds_i holds [i, i + .5, i + 1, i + 1.5]) and prints one JSON line.
import { readFileSync } from "node:fs";
const { Atlas } = await import(new URL("../../js/dist/node.js", import.meta.url).href);
const { initSync } = await import(new URL("../../js/dist/atlas_wasm.js", import.meta.url).href);
// The wasm memory never shrinks: its size at the end is the instance's peak.
const wasmMemory = () => initSync().memory.buffer.byteLength;

const [url, mode, batchText, maxMemoryText] = process.argv.slice(2);
const batch = Number(batchText);
const rss = () => process.memoryUsage().rss;
const hwm = () => Number(readFileSync("/proc/self/status", "utf8").match(/VmHWM:\s+(\d+)/)[1]) * 1024;

function check(name, data, at = 0) {
  const i = Number(name.slice(3));
  for (let k = 0; k < 4; k++) if (data[at + k] !== i + k / 2) throw new Error(`${name}[${k}] = ${data[at + k]}`);
}

const started = performance.now();
const atlas = await Atlas.open(url, { decodeWorkers: 0, maxMemory: Number(maxMemoryText) });
const count = atlas.listDatasets().length;
const afterOpen = rss();
let seen = 0;
let afterFirst = 0;
let peakDuring = 0;
if (mode === "iterate") {
  for await (const { name, data } of atlas.iterate("temperature", { batch })) {
    check(name, data);
    seen++;
    if (seen === batch) afterFirst = rss();
    if (seen % batch === 0) peakDuring = Math.max(peakDuring, rss());
  }
} else {
  const all = await atlas.readAcross("temperature");
  all.datasets.forEach((name, k) => check(name, all.data, 4 * k));
  seen = all.datasets.length;
  afterFirst = rss();
}
if (seen !== count) throw new Error(`read ${seen} of ${count} datasets`);
console.log(JSON.stringify({ mode, count, ms: performance.now() - started, afterOpen, afterFirst, peakDuring, hwm: hwm(), wasm: wasmMemory() }));
