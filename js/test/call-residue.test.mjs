// A call leaves nothing behind, whether its AbortSignal fires or not. A
// signal that never fired once kept ~0.8 KB of closures per call alive for
// good (the abort promise's JsFuture, dropped before its promise settled):
// 8 MB per 10,000 calls, where this test allows 1 MiB. Each kind of call runs
// 10,000 times with a fresh AbortController: half against a source that
// answers (the signal never fires), half against one that never answers
// (each call is aborted while it waits). The heap is read after forced
// collections, before and after, once a first pass of the same calls has
// warmed up the code and the caches.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { setImmediate } from "node:timers/promises";
import v8 from "node:v8";
import vm from "node:vm";
import { Atlas } from "atlas-wasm";
import { AtriaCache } from "atlas-wasm/atria";
import { CORPUS, expectedAtria } from "./atria-expect.mjs";
import { FIXTURES } from "./expect.mjs";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");
const CALLS = 10_000;
// One pass of the same calls first, so the caches hold what the measured
// pass reads (every dataset's block, every wrapper made once).
const WARM_UP = CALLS;
const BOUND = 1024 * 1024;

async function settledHeap() {
  let least = Infinity;
  for (let i = 0; i < 4; i++) {
    await setImmediate(); // lets finalization callbacks run between collections
    gc();
    least = Math.min(least, process.memoryUsage().heapUsed);
  }
  return least;
}

/** A source over `bytes` that answers on a later turn, or never once `hang.on`. */
function bytesSource(bytes, hang) {
  return {
    size: bytes.length,
    read: async (offset, length, signal) => {
      if (hang.on) {
        return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
      }
      await setImmediate();
      return bytes.subarray(offset, offset + length);
    },
  };
}

/**
 * Runs `call(i, signal)` CALLS times: even `i` on `live` (signal never
 * fired), odd `i` on `hung` (aborted once it waits); asserts every hung call
 * was aborted and the heap did not grow past BOUND.
 */
async function soak(label, live, hung) {
  const once = async (i) => {
    const controller = new AbortController();
    if (i % 2 === 0) return live(i, controller.signal);
    const pending = hung(i, controller.signal);
    await setImmediate();
    controller.abort();
    await assert.rejects(pending, (e) => e.code === "Aborted", `${label}: call ${i} was not aborted`);
  };
  for (let i = 0; i < WARM_UP; i++) await once(i);
  const before = await settledHeap();
  for (let i = 0; i < CALLS; i++) await once(i);
  const grown = (await settledHeap()) - before;
  assert.ok(grown < BOUND, `${label}: the heap grew ${grown} bytes over ${CALLS} calls`);
}

async function collectionPair() {
  const bytes = new Uint8Array(readFileSync(join(FIXTURES, "ten_thousand_datasets", "data.atlas")));
  const hang = { on: false };
  const live = await Atlas.open({ data: bytesSource(bytes, { on: false }) }, { decodeWorkers: 0 });
  const hung = await Atlas.open({ data: bytesSource(bytes, hang) }, { decodeWorkers: 0 });
  hang.on = true; // opened; every read from now on waits for ever
  return { live, hung, names: live.listDatasets() };
}

it("read, readAcross and stats leave no residue, signals fired or not", async () => {
  const { live, hung, names } = await collectionPair();
  const name = (i) => names[i % names.length];
  await soak(
    "read",
    (i, signal) => live.dataset(name(i)).read("temperature", { signal }),
    (i, signal) => hung.dataset(name(i)).read("temperature", { signal }),
  );
  const some = (i) => [name(i), name(i + 7), name(i + 101)];
  await soak(
    "readAcross",
    (i, signal) => live.readAcross("temperature", { datasets: some(i), signal }),
    (i, signal) => hung.readAcross("temperature", { datasets: some(i), signal }),
  );
  await soak(
    "stats",
    (i, signal) => live.dataset(name(i)).stats("temperature", { signal }),
    (i, signal) => hung.dataset(name(i)).stats("temperature", { signal }),
  );
  live.close();
  hung.close();
});

/** The msgpack cache's config directory as an Atria store; `hang.on` stops its reads. */
function fileStore(root, hang) {
  return {
    source: (path) => {
      let bytes;
      try {
        bytes = new Uint8Array(readFileSync(join(root, path)));
      } catch {
        return null;
      }
      return bytesSource(bytes, hang);
    },
    list: async (dir) => {
      try {
        return readdirSync(join(root, dir)).sort();
      } catch {
        return [];
      }
    },
  };
}

it("an Atria row leaves no residue, signals fired or not", async () => {
  const expected = expectedAtria();
  const root = join(CORPUS, expected.config);
  const [splitName] = Object.keys(expected.msgpack);
  const hang = { on: false };
  const live = await (await AtriaCache.open(fileStore(root, { on: false }))).split(splitName);
  const hung = await (await AtriaCache.open(fileStore(root, hang))).split(splitName);
  hang.on = true;
  const rows = live.numRows;
  await soak(
    "Atria row",
    (i, signal) => live.row(i % rows, { signal }),
    (i, signal) => hung.row(i % rows, { signal }),
  );
});
