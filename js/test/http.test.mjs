// The HTTP source against a local Range server: every fixture read in full,
// what each call costs in requests and bytes, and servers that misbehave.
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Atlas, AtlasError } from "atlas-wasm";
import { FIXTURES, checkCollection, expected, fixtureNames, sameValues, window } from "./expect.mjs";
import { startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer({ root: FIXTURES });
});
after(() => server.close());

const url = (name, knob = "") => `${server.url}${knob}/${name}`;
const dataRequests = () => server.log.filter((e) => e.url.endsWith("/data.atlas"));
const size = (name, file = "data.atlas") => statSync(join(FIXTURES, name, file)).size;
// The fixtures are smaller than the open's first read (64 KiB), which then
// serves every later read: tests of what reads request open with a small one.
const SMALL_PROBE = { tailProbeBytes: 4096 };

async function rejects(promise, code) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof AtlasError, `an AtlasError, not ${error}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

describe("every fixture over HTTP matches atlas-rust's dump", () => {
  for (const name of fixtureNames()) {
    it(name, async () => {
      const atlas = await Atlas.open(url(name));
      try {
        // Ten thousand datasets: walk a hundred in full, the catalogue whole.
        await checkCollection(atlas, expected(name), { sample: name === "ten_thousand_datasets" ? 100 : Infinity });
      } finally {
        atlas.close();
      }
    });
  }
});

describe("what a call costs", () => {
  it("opens with one suffix read of the data and one of the mask", async () => {
    for (const name of ["every_dtype_zstd", "deleted_datasets", "large_window", "ten_thousand_datasets"]) {
      server.reset();
      const atlas = await Atlas.open(url(name));
      const data = dataRequests();
      assert.equal(data.length, 1, `${name}: one data request`);
      assert.equal(data[0].range, "bytes=-65536");
      assert.equal(data[0].bytes, Math.min(65536, size(name)));
      const mask = server.log.filter((e) => e.url.endsWith("/deleted.mask"));
      assert.equal(mask.length, 1, `${name}: one mask request`);
      assert.equal(server.log.length, 2);
      atlas.close();
    }
  });

  it("reads a window with the blocks it needs, then from the cache", async () => {
    // small_blocks: one segment per array, in 4 KiB blocks.
    const name = "small_blocks";
    const want = expected(name).datasets[2];
    const array = want.arrays.find((a) => a.name === "signal");
    const atlas = await Atlas.open(url(name), SMALL_PROBE);
    const ds = atlas.dataset(want.name);
    server.reset();
    const [start, shape] = [[1510], [180]];
    sameValues(await ds.read(array.name, { start, shape }), window(array.values, array.shape, start, shape), "float64", "window");
    const first = dataRequests();
    const fetched = first.reduce((n, e) => n + e.bytes, 0);
    // The core reads a segment under 256 KiB whole, in the one request that opens it.
    assert.equal(first.length, 1);
    assert.ok(fetched < size(name) * 0.6, `${fetched} bytes of ${size(name)}`);
    assert.ok(first.every((e) => e.status === 206 && e.ifMatch), "ranged and pinned by If-Match");

    server.reset();
    await ds.read(array.name, { start, shape });
    assert.equal(server.log.length, 0, "a second read of the same window costs nothing");
    atlas.close();
  });

  it("reads a window of a one-block array with two requests: segment footer, block", async () => {
    const name = "large_window";
    const want = expected(name).datasets[0];
    const array = want.arrays[0];
    const atlas = await Atlas.open(url(name));
    server.reset();
    const [start, shape] = [[250, 300], [20, 30]];
    const read = await atlas.dataset(want.name).read(array.name, { start, shape });
    sameValues(read, window(array.values, array.shape, start, shape), array.dtype, "window");
    assert.equal(dataRequests().length, 2);
    atlas.close();
  });

  it("reports progress and keeps requests in flight under maxConcurrency", async () => {
    const name = "every_dtype_uncompressed";
    const atlas = await Atlas.open(url(name, "/~slow"), { maxConcurrency: 2, ...SMALL_PROBE });
    const ds = atlas.dataset("chunked");
    server.reset();
    const reports = [];
    const arrays = ds.listArrays();
    await Promise.all(arrays.map((a, i) => ds.read(a, i === 0 ? { onProgress: (p) => reports.push(p) } : {})));
    assert.ok(server.maxActive <= 2 && server.log.length > 2, `${server.maxActive} in flight over ${server.log.length} requests`);
    assert.ok(reports.length >= 1);
    const last = reports.at(-1);
    assert.ok(reports[0].loaded === 0 && last.loaded === last.total, JSON.stringify(reports));
    atlas.close();
  });
});

describe("servers that misbehave", () => {
  it("a server that ignores Range fails loudly", async () => {
    // A small object answered whole fits the tail: the open works and every
    // read comes from those bytes; when it does not fit, the open fails.
    server.reset();
    const whole = await Atlas.open(url("every_dtype_zstd", "/~ignore-range"));
    await checkCollection(whole, expected("every_dtype_zstd"));
    assert.equal(dataRequests().length, 1, "everything from the one answer");
    await rejects(Atlas.open(url("every_dtype_zstd", "/~ignore-range"), SMALL_PROBE), "RangeNotSupported");
    await rejects(Atlas.open(url("large_window", "/~ignore-range")), "RangeNotSupported");
    await assert.rejects(Atlas.open(url("large_window", "/~ignore-range")), /ignored Range/);
  });

  it("416 is an error", async () => {
    await assert.rejects(Atlas.open(url("every_dtype_zstd", "/~416")), (e) => e.code === "HttpStatus" && e.status === 416);
  });

  it("a compressed range is an error, not data", async () => {
    await assert.rejects(Atlas.open(url("every_dtype_zstd", "/~gzip")), (e) => e.code === "ContentEncoded" && /Content-Encoding: gzip/.test(e.message));
  });

  it("a collection replaced under an open handle is ObjectChanged", async () => {
    const atlas = await Atlas.open(url("every_dtype_zstd", "/~etag-change"), SMALL_PROBE);
    server.reset();
    await rejects(atlas.dataset("chunked").read("int8"), "ObjectChanged");
    assert.equal(server.log[0].ifMatch, '"v1"');
    assert.equal(server.log[0].status, 412);
  });

  it("500 then success is retried", async () => {
    server.reset();
    const atlas = await Atlas.open(url("every_dtype_zstd", "/~flaky"));
    const statuses = dataRequests().map((e) => e.status);
    assert.deepEqual(statuses, [500, 206]);
    await checkCollection(atlas, expected("every_dtype_zstd"));
    atlas.close();
  });

  it("a missing collection is NotFound; a missing mask is no mask", async () => {
    await rejects(Atlas.open(url("no_such_collection")), "NotFound");
    const atlas = await Atlas.open(url("every_dtype_zstd"));
    assert.equal(atlas.deletedCount, 0);
  });

  it("a file that is not a collection is NotAnAtlasCollection", async () => {
    await rejects(Atlas.open({ data: Atlas.fromUrl(`${server.url}/every_dtype_zstd/expected.json`) }), "NotAnAtlasCollection");
  });
});

describe("abort", () => {
  it("an aborted signal rejects open and read with Aborted", async () => {
    await rejects(Atlas.open(url("every_dtype_zstd"), { signal: AbortSignal.abort() }), "Aborted");
    const atlas = await Atlas.open(url("every_dtype_zstd", "/~slow"), SMALL_PROBE);
    const controller = new AbortController();
    const read = atlas.dataset("chunked").read("float64", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await rejects(read, "Aborted");
    assert.ok(Date.now() - started < 250, "rejects at once, not when the answer comes");
    atlas.close();
  });

  it("metadata calls take a signal too", async () => {
    const atlas = await Atlas.open(url("every_dtype_zstd", "/~slow"), SMALL_PROBE);
    const ds = atlas.dataset("chunked");
    const gone = { signal: AbortSignal.abort() };
    await rejects(atlas.arrayStats("int8", gone), "Aborted");
    await rejects(atlas.arrayStatsByDataset("int8", gone), "Aborted");
    await rejects(atlas.attributesByDataset(null, "title", gone), "Aborted");
    await rejects(ds.layout("int8", gone), "Aborted");
    await rejects(ds.stats("int8", gone), "Aborted");
    await rejects(ds.attributes(gone), "Aborted");
    await rejects(ds.arrayAttributes("int8", gone), "Aborted");
    // Aborted while its segment is being fetched from a slow server.
    const controller = new AbortController();
    const layout = ds.layout("float64", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await rejects(layout, "Aborted");
    assert.ok(Date.now() - started < 250, "rejects at once, not when the answer comes");
    // The handle still answers afterwards.
    assert.deepEqual((await ds.layout("float64")).shape.length > 0, true);
    atlas.close();
  });
});
