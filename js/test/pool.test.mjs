// The decode pool (worker_threads here, Web Workers in Chromium): the same
// values with 0 and 2 workers, a pool torn down by close(), and reads
// aborted while a block is on a worker.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { Atlas, AtlasError } from "atlas-wasm";
import { FIXTURES, checkCollection, expected, float, sameValues } from "./expect.mjs";
import { openPage } from "./page.mjs";

const CHECKED = ["small_blocks", "every_dtype_zstd", "every_dtype_lz4", "python_netcdf", "python_netcdf_lz4", "deleted_datasets"];
const file = (name, f = "data.atlas") => readFileSync(join(FIXTURES, name, f));
const sources = (name) => {
  let mask = null;
  try {
    mask = Atlas.fromBytes(file(name, "deleted.mask"));
  } catch {}
  return { data: Atlas.fromBytes(file(name)), mask };
};

// Blocks posted to workers: counted, and a hook run as each one leaves.
let posted = 0;
let onBlock = () => {};
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (message, transfer) {
  const result = post.call(this, message, transfer);
  if (message?.bytes) {
    posted++;
    onBlock();
  }
  return result;
};

// A block with no other block loading beside it is decoded in place, so a
// read of one block never reaches the pool: these read `signal` of
// small_blocks, which spans several 4 KiB blocks.
const MANY = "small_blocks";

/** What atlas-rust read from `signal` of small_blocks' dataset `dataset`. */
function signal(dataset = "series_00") {
  return expected(MANY)
    .datasets.find((d) => d.name === dataset)
    .arrays.find((a) => a.name === "signal");
}

/** Reads `signal` of `dataset` until a block went to a worker: until one has
 * started, blocks are decoded on the calling thread. `atlas` (small_blocks)
 * must be opened with `cacheBytes: 0`. */
async function warm(atlas, dataset = "series_00") {
  const before = posted;
  for (let i = 0; i < 200 && posted === before; i++) {
    await atlas.dataset(dataset).read("signal");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.ok(posted > before, "no block went to a decode worker");
}

/** The first block a worker is given, and a read of the array it belongs to. */
async function readUntilBlock(atlas, act) {
  onBlock = () => {
    onBlock = () => {};
    act();
  };
  try {
    return await atlas.dataset("series_00").read("signal", { signal: act.signal });
  } finally {
    onBlock = () => {};
  }
}

// DecodePool alone, with a fake runtime: where each block goes.
const { DecodePool } = await import(new URL("../node_modules/atlas-wasm/dist/pool.js", import.meta.url).href);

/** A runtime whose decode module loads when `load.resolve()` is called,
 * and whose workers are objects that record what they are sent. */
function fakeRuntime() {
  const workers = [];
  let resolve, reject;
  const loading = new Promise((res, rej) => ((resolve = res), (reject = rej)));
  const runtime = {
    loads: 0,
    decoder: () => (runtime.loads++, loading),
    spawn(onMessage) {
      const worker = { sent: [], post: (m, transfer) => worker.sent.push({ m, transfer }), terminate() {}, ref() {}, unref() {}, onMessage };
      workers.push(worker);
      return worker;
    },
  };
  return { runtime, workers, load: { resolve: () => resolve("M"), reject: () => reject(new Error("no module")) } };
}

describe("DecodePool: where a block goes", () => {
  const block = () => new Uint8Array([9, 1, 2, 3]);

  it("without workers nothing loads, and the core decodes every block", async () => {
    const { runtime, workers } = fakeRuntime();
    const pool = new DecodePool(0, runtime);
    pool.prepare();
    assert.equal(pool.decode("zstd", block(), 8, 8), undefined);
    assert.equal(pool.decode("zstd", block(), 8, 8), undefined);
    assert.equal(runtime.loads, 0, "no decode module compiled");
    assert.equal(workers.length, 0);
  });

  it("prepare() compiles the module once, before the first block, then starts a worker", async () => {
    const { runtime, workers, load } = fakeRuntime();
    const pool = new DecodePool(1, runtime);
    pool.prepare();
    pool.prepare();
    assert.equal(runtime.loads, 1, "compiled once");
    assert.equal(pool.decode("zstd", block(), 8, 8), undefined, "the core decodes while it compiles");
    load.resolve();
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(workers.length, 1);
    assert.deepEqual(workers[0].sent[0].m, { module: "M" });
  });

  it("workers start after the module, take blocks once ready, with a copy of the bytes", async () => {
    const { runtime, workers, load } = fakeRuntime();
    const pool = new DecodePool(1, runtime);
    pool.prepare();
    load.resolve();
    await new Promise((r) => setTimeout(r, 0));
    // Not ready yet: left to the core, and one worker started with the module.
    assert.equal(pool.decode("zstd", block(), 8, 8), undefined);
    assert.equal(workers.length, 1);
    assert.deepEqual(workers[0].sent[0].m, { module: "M" });
    workers[0].onMessage({ ready: true });
    const bytes = block();
    const answer = pool.decode("lz4", bytes, 8, 6);
    assert.ok(answer instanceof Promise);
    const { m, transfer } = workers[0].sent[1];
    assert.notEqual(m.bytes.buffer, bytes.buffer, "the caller's bytes are not transferred");
    assert.deepEqual([m.codec, [...m.bytes], m.uncompressedSize, m.wanted, transfer[0]], ["lz4", [9, 1, 2, 3], 8, 6, m.bytes.buffer]);
    // Busy: the next block queues on it (no second worker past the size).
    const queued = pool.decode("zstd", block(), 8, 8);
    assert.ok(queued instanceof Promise);
    assert.equal(workers.length, 1);
    workers[0].onMessage({ id: m.id, bytes: new Uint8Array([1, 2, 3, 4, 5, 6]) });
    assert.deepEqual([...(await answer)], [1, 2, 3, 4, 5, 6]);
    workers[0].onMessage({ id: workers[0].sent[2].m.id, error: { message: "corrupt collection: bad", code: "CorruptCollection" } });
    await assert.rejects(queued, (e) => e instanceof AtlasError && e.code === "CorruptCollection");
    pool.close();
    await assert.rejects(pool.decode("zstd", block(), 8, 8), (e) => e.code === "InvalidArgument");
  });

  it("a pool made once the module is compiled starts a worker with it at its first block", async () => {
    const { runtime, workers } = fakeRuntime();
    const pool = new DecodePool(1, { ...runtime, loaded: "M" });
    assert.equal(pool.decode("zstd", block(), 8, 8), undefined);
    assert.equal(runtime.loads, 0);
    assert.equal(workers.length, 1);
    assert.deepEqual(workers[0].sent[0].m, { module: "M" });
  });

  it("a decode module that fails to load leaves every block to the core", async () => {
    const { runtime, workers, load } = fakeRuntime();
    const pool = new DecodePool(2, runtime);
    pool.prepare();
    load.reject();
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(pool.decode("zstd", block(), 8, 8), undefined);
    assert.equal(workers.length, 0);
  });
});

describe("the decode pool in Node", () => {
  for (const workers of [0, 2]) {
    it(`reads every value like atlas-rust with decodeWorkers ${workers}`, async () => {
      const before = posted;
      for (const name of CHECKED) {
        const atlas = await Atlas.open(sources(name), { decodeWorkers: workers, cacheBytes: 0 });
        // With workers, check the values they decode, not the first blocks decoded here.
        if (workers > 0 && name === MANY) await warm(atlas);
        await checkCollection(atlas, expected(name));
        atlas.close();
      }
      if (workers === 0) assert.equal(posted, before, "no block went to a worker");
      else assert.ok(posted > before, "blocks went to workers");
    });
  }

  it("rejects decodeWorkers that is not a whole number", async () => {
    await assert.rejects(Atlas.open(sources("every_dtype_zstd"), { decodeWorkers: -1 }), (e) => e instanceof AtlasError && e.code === "InvalidArgument");
  });

  it("decodes on the calling thread until a worker is ready, then on workers", async () => {
    const atlas = await Atlas.open(sources(MANY), { decodeWorkers: 1, cacheBytes: 0 });
    const before = posted;
    sameValues(await atlas.dataset("series_00").read("signal"), signal().values, "float64", "series_00/signal");
    assert.equal(posted, before, "the first read did not wait for a worker to start");
    await warm(atlas);
    atlas.close();
  });

  it("a block read alone is decoded in place, with a worker ready", async () => {
    const atlas = await Atlas.open(sources(MANY), { decodeWorkers: 1, cacheBytes: 0 });
    await warm(atlas);
    const before = posted;
    // One 7-label chunk: one block.
    const labels = expected(MANY).datasets.find((d) => d.name === "series_02").arrays.find((a) => a.name === "label").values;
    const window = await atlas.dataset("series_02").read("label", { start: [7], shape: [7] });
    assert.deepEqual(window.data, labels.slice(7, 14));
    assert.equal(posted, before, "no block went to a worker");
    atlas.close();
  });

  it("rejects a read aborted while its block is on a worker, and reads again after", async () => {
    const atlas = await Atlas.open(sources(MANY), { decodeWorkers: 2, cacheBytes: 0 });
    await warm(atlas);
    const controller = new AbortController();
    const act = () => controller.abort();
    act.signal = controller.signal;
    await assert.rejects(readUntilBlock(atlas, act), (e) => e instanceof AtlasError && e.code === "Aborted");
    const again = await atlas.dataset("series_00").read("signal");
    sameValues(again, signal().values, "float64", "series_00/signal");
    atlas.close();
  });

  it("a corrupt block is CorruptCollection, from the core here and from the decode module on a worker", async () => {
    // Where series_00/signal's last blocks lie: the last range a read of it fetches.
    const bytes = file(MANY);
    const ranges = [];
    const logged = { size: bytes.length, read: async (offset, length) => (ranges.push([offset, length]), bytes.subarray(offset, offset + length)) };
    const probe = await Atlas.open({ data: logged }, { decodeWorkers: 0, cacheBytes: 0, tailProbeBytes: 1024 });
    await probe.dataset("series_00").read("signal");
    probe.close();
    const [offset] = ranges.at(-1);
    const broken = bytes.slice();
    broken.fill(0xee, offset, offset + 4); // the zstd frame's magic number
    for (const workers of [0, 2]) {
      const atlas = await Atlas.open({ data: Atlas.fromBytes(broken) }, { decodeWorkers: workers, cacheBytes: 0 });
      // With workers, one ready before the read that matters, warmed on a
      // dataset whose blocks are intact.
      if (workers > 0) await warm(atlas, "series_04");
      const before = posted;
      await assert.rejects(atlas.dataset("series_00").read("signal"), (e) => e instanceof AtlasError && e.code === "CorruptCollection" && /zstd/.test(e.message), `decodeWorkers ${workers}`);
      // The instance survives: a healthy array of the same collection still reads.
      sameValues(await atlas.dataset("series_04").read("signal"), signal("series_04").values, "float64", "series_04/signal");
      if (workers > 0) assert.ok(posted > before, "the corrupt block went to a worker");
      atlas.close();
    }
  });

  it("close() stops the workers and fails the read waiting on them", async () => {
    const atlas = await Atlas.open(sources(MANY), { decodeWorkers: 2, cacheBytes: 0 });
    await warm(atlas);
    const act = () => atlas.close();
    await assert.rejects(readUntilBlock(atlas, act), (e) => e instanceof AtlasError && e.code === "InvalidArgument" && /closed/.test(e.message));
    assert.throws(() => atlas.listDatasets(), /closed/);
  });
});

// Blocks posted to Web Workers: counted, and a hook run as each one leaves.
const HOOKS = `
  window.posted = 0;
  window.onBlock = () => {};
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, transfer) {
    const result = post.call(this, message, transfer);
    if (message?.bytes) { window.posted++; window.onBlock(); }
    return result;
  };`;

describe("the decode pool in headless Chromium (Web Workers)", () => {
  let site, page, closePage;
  before(async () => {
    ({ site, page, close: closePage } = await openPage(HOOKS));
  });
  after(async () => {
    await closePage?.();
  });

  /** `series_00/signal` of a fixture read in the page, as strings, with the blocks posted. */
  const readInPage = (name, workers, act) =>
    page.evaluate(
      async ({ url, workers, act }) => {
        const { Atlas } = window.atlasWasm;
        const atlas = await Atlas.open(url, { decodeWorkers: workers, cacheBytes: 0 });
        const controller = new AbortController();
        // Until a worker has started, blocks decode in the page: wait for one.
        const started = window.posted;
        for (let i = 0; workers > 0 && i < 200 && window.posted === started; i++) {
          await atlas.dataset("series_00").read("signal");
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const before = window.posted;
        window.onBlock = () => {
          window.onBlock = () => {};
          if (act === "abort") controller.abort();
          if (act === "close") atlas.close();
        };
        try {
          const r = await atlas.dataset("series_00").read("signal", { signal: controller.signal });
          return { values: Array.from(r.data, String), posted: window.posted - before };
        } catch (e) {
          return { error: e.code, posted: window.posted - before };
        } finally {
          window.onBlock = () => {};
          atlas.close();
        }
      },
      { url: `${site.url}/fixtures/${name}`, workers, act },
    );

  const want = () => signal().values.map((v) => String(float(v)));

  it("reads the same values with 0 and 2 workers", async () => {
    const inline = await readInPage(MANY, 0);
    const pooled = await readInPage(MANY, 2);
    assert.deepEqual(inline.values, want());
    assert.deepEqual(pooled.values, want());
    assert.equal(inline.posted, 0);
    assert.ok(pooled.posted > 0, "blocks went to Web Workers");
  });

  it("rejects a read aborted while its block is on a worker", async () => {
    assert.equal((await readInPage(MANY, 2, "abort")).error, "Aborted");
  });

  it("close() fails the read waiting on a worker", async () => {
    assert.equal((await readInPage(MANY, 2, "close")).error, "InvalidArgument");
  });
});
