// What a second thread could take off W2: the workload's `temperature`
// blocks decoded with the decode module, code warm, each decoded block copied
// once into one fresh 65 MB answer, from memory (no HTTP). Three ways: all on
// the calling thread; all on one worker, the calling thread only copying;
// every other block on each. The floor for W2's decode-and-copy phase with
// one and with two threads, whatever the core's seam does.
//
//   node benches/js/two_threads.mjs WORKLOAD_DIR [--runs 5]
//
// js/dist must be built (bash js/scripts/build.sh).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import { median, weighted } from "./stats.mjs";

const argv = process.argv.slice(2);
const dist = new URL("../../js/dist/", import.meta.url);
const MODES = ["calling thread", "worker", "both"];

if (argv[0] === "--child") await measure(argv[1], argv[2]);
else await compare(argv[0], Number(argv.includes("--runs") ? argv[argv.indexOf("--runs") + 1] : 5));

async function compare(dir, runs) {
  const times = new Map(MODES.map((m) => [m, []]));
  for (let run = 0; run < runs; run++) {
    for (const mode of MODES) {
      const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), "--child", dir, mode]);
      times.get(mode).push(JSON.parse(stdout).ms);
    }
  }
  const base = median(times.get(MODES[0]));
  console.log(`| decoding | median ms | ÷ calling thread | all runs |\n|---|---:|---:|---|`);
  for (const [mode, v] of times) {
    console.log(`| ${mode} | ${median(v).toFixed(1)} | ${(median(v) / base).toFixed(2)} | ${v.map((x) => x.toFixed(0)).join(", ")} |`);
  }
}

async function measure(dir, mode) {
  const { Atlas } = await import(new URL("node.js", dist).href);
  const decoder = await import(new URL("atlas_decode.js", dist).href);
  const module = await WebAssembly.compile(readFileSync(new URL("atlas_decode_bg.wasm", dist)));
  decoder.initSync({ module });
  const want = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
  const file = readFileSync(join(dir, "atlas", "data.atlas"));

  // The blocks are the ranges a second readAcross asks for, one request per
  // block (the first also opened the segment; no block is cached).
  const ranges = [];
  const logged = { size: file.length, read: async (offset, length) => (ranges.push([offset, length]), file.subarray(offset, offset + length)) };
  const atlas = await Atlas.open({ data: logged }, { decodeWorkers: 0, cacheBytes: 0, coalesceBytes: 1 });
  await atlas.readAcross(want.array);
  const before = ranges.length;
  await atlas.readAcross(want.array);
  atlas.close();
  const blocks = ranges.slice(before).map(([offset, length]) => {
    const bytes = new Uint8Array(file.subarray(offset, offset + length));
    return { bytes, size: contentSize(bytes) };
  });

  const worker = new Worker(new URL("two_threads_worker.mjs", import.meta.url));
  const warm = blocks[0];
  await new Promise((ready) => {
    worker.once("message", ready);
    worker.postMessage({ module, warm: warm.bytes, size: warm.size });
  });
  for (let i = 0; i < 3; i++) decoder.decodeBlock("zstd", warm.bytes, warm.size, warm.size);

  const started = performance.now();
  const answer = new Uint8Array(blocks.reduce((n, b) => n + b.size, 0));
  const at = [];
  blocks.reduce((offset, b) => (at.push(offset), offset + b.size), 0);
  const onWorker = (i) =>
    new Promise((done) => {
      const copy = blocks[i].bytes.slice();
      const answered = (m) => m.i === i && (worker.off("message", answered), done(m.out));
      worker.on("message", answered);
      worker.postMessage({ i, bytes: copy, size: blocks[i].size }, [copy.buffer]);
    });
  const here = (i) => decoder.decodeBlock("zstd", blocks[i].bytes, blocks[i].size, blocks[i].size);
  const pending = [];
  for (let i = 0; i < blocks.length; i++) {
    if (mode === "worker" || (mode === "both" && i % 2 === 0)) {
      pending.push(onWorker(i).then((out) => answer.set(out, at[i])));
    } else {
      await new Promise((turn) => setImmediate(turn)); // lets the worker's answers in
      answer.set(here(i), at[i]);
    }
  }
  await Promise.all(pending);
  const ms = performance.now() - started;
  await worker.terminate();
  // The blocks hold the 1,000 arrays back to back: their bytes are W2's answer.
  const sum = weighted(new Uint32Array(answer.buffer));
  if (sum !== want.w2) throw new Error(`checksum ${sum}, expected ${want.w2}`);
  console.log(JSON.stringify({ ms, blocks: blocks.length, bytes: answer.length }));
}

/** The Frame_Content_Size of a zstd frame's header (RFC 8878, 3.1.1.1). */
function contentSize(frame) {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (view.getUint32(0, true) !== 0xfd2fb528) throw new Error("not a zstd frame");
  const descriptor = view.getUint8(4);
  const single = (descriptor >> 5) & 1;
  const at = 5 + (single ? 0 : 1) + [0, 1, 2, 4][descriptor & 3];
  switch (descriptor >> 6) {
    case 0:
      if (!single) throw new Error("the frame does not say its size");
      return view.getUint8(at);
    case 1:
      return view.getUint16(at, true) + 256;
    case 2:
      return view.getUint32(at, true);
    default:
      return Number(view.getBigUint64(at, true));
  }
}
