// `atlas.iterate` holds one batch, whatever the number of datasets. Handles
// made per dataset and left to the garbage collector once grew the heap by
// 440-820 KiB per 10,000 datasets. This test walks the same 10,000 datasets
// five times and compares the heap after the second pass (code compiled,
// caches warm, the segment open) with the heap after the fifth: a residue
// of 44 bytes per dataset or more would add 1.3 MiB or more. Each figure is
// the least of several forced collections, so a collector that is slow to
// finish under load (a busy machine once added 167 KB to a single reading)
// does not count as growth.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { it } from "node:test";
import { Atlas } from "atlas-wasm";
import { FIXTURES } from "./expect.mjs";
import { settledHeap } from "./heap.mjs";

const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));
const PASSES = 5;
const BOUND = 1024 * 1024;

it("iterate's memory stays flat across passes over 10,000 datasets", async () => {
  const { initSync } = await import(join(PACKAGE, "dist", "atlas_wasm.js"));
  const wasmMemory = () => initSync().memory.buffer.byteLength;
  const data = readFileSync(join(FIXTURES, "ten_thousand_datasets", "data.atlas"));
  const atlas = await Atlas.open({ data: Atlas.fromBytes(data) }, { decodeWorkers: 0 });
  const heap = [];
  const wasm = [];
  for (let pass = 0; pass < PASSES; pass++) {
    let count = 0;
    for await (const { name, data } of atlas.iterate("temperature", { batch: 500 })) {
      assert.equal(data[0], Number(name.slice(3)) * 0.5, name);
      count++;
    }
    assert.equal(count, 10_000);
    heap.push(await settledHeap());
    wasm.push(wasmMemory());
  }
  atlas.close();
  const grown = heap.at(-1) - heap[1];
  assert.ok(
    grown < BOUND,
    `the heap grew ${grown} bytes over ${PASSES - 2} passes of 10,000 datasets: ${heap}`,
  );
  assert.equal(new Set(wasm.slice(1)).size, 1, `wasm memory after each pass: ${wasm}`);
});
