// onProgress({loaded, total}) against the request log of a local Range
// server: the total is the bytes the read plan requests, told before any of
// them arrives, and loaded reaches it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Atlas, AtlasError } from "atlas-wasm";
import { FIXTURES, expected, sameValues, window } from "./expect.mjs";
import { startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer({ root: FIXTURES });
});
after(() => server.close());

const url = (name, knob = "") => `${server.url}${knob}/${name}`;
const dataRequests = () => server.log.filter((e) => e.url.endsWith("/data.atlas"));
const bytesOf = (entries) => entries.reduce((n, e) => n + e.bytes, 0);
// The fixtures are smaller than the open's first read (64 KiB), which then
// serves every later read: these tests open with a small one.
const SMALL_PROBE = { tailProbeBytes: 4096 };

describe("onProgress({loaded, total})", () => {
  it("a read of an open segment: total is the request log's bytes, told before any answer", async () => {
    const name = "large_window";
    const want = expected(name).datasets[0];
    const array = want.arrays[0];
    const atlas = await Atlas.open(url(name, "/~slow"), SMALL_PROBE);
    const ds = atlas.dataset(want.name);
    await ds.layout(array.name); // opens the segment: its footer is not this read's
    server.reset();
    const reports = [];
    let answeredAtFirst;
    const [start, shape] = [[250, 300], [20, 30]];
    const read = await ds.read(array.name, {
      start,
      shape,
      onProgress: (p) => {
        answeredAtFirst ??= server.log.filter((e) => e.status !== 0).length;
        reports.push({ ...p });
      },
    });
    sameValues(read, window(array.values, array.shape, start, shape), array.dtype, "window");
    const requested = dataRequests();
    assert.ok(requested.length >= 1, "the block was requested");
    assert.deepEqual(reports[0], { loaded: 0, total: bytesOf(requested) }, JSON.stringify(reports));
    assert.equal(answeredAtFirst, 0, "the first report came before any answer");
    assert.ok(reports.every((p) => p.total === reports[0].total), "total never changes");
    assert.deepEqual(reports.at(-1), { loaded: reports[0].total, total: reports[0].total });
    for (let i = 1; i < reports.length; i++) assert.ok(reports[i].loaded > reports[i - 1].loaded);

    // Again: every block is cached, nothing is requested, one report says so.
    server.reset();
    const again = [];
    await ds.read(array.name, { start, shape, onProgress: (p) => again.push(p) });
    assert.equal(server.log.length, 0);
    assert.deepEqual(again, [{ loaded: 0, total: 0 }]);
    atlas.close();
  });

  it("a segment read whole at its open: its blocks cost no further request, total 0", async () => {
    // Segments of 256 KiB or less come whole with their open (docs/read-path.md).
    const name = "ten_thousand_datasets";
    const atlas = await Atlas.open(url(name), SMALL_PROBE);
    server.reset();
    const reports = [];
    const result = await atlas.readAcross("temperature", { onProgress: (p) => reports.push({ ...p }) });
    assert.deepEqual(result.shape, [10_000, 3]);
    assert.equal(dataRequests().length, 1, "the segment's open, which is not counted");
    assert.deepEqual(reports, [{ loaded: 0, total: 0 }]);
    atlas.close();
  });

  it("readAcross: the segment footer comes first and is not counted; the block is", async () => {
    const name = "large_window";
    const atlas = await Atlas.open(url(name), SMALL_PROBE);
    server.reset();
    const reports = [];
    const result = await atlas.readAcross("field", { start: [0, 0], shape: [2, 2], onProgress: (p) => reports.push({ ...p }) });
    assert.deepEqual(result.shape, [1, 2, 2]);
    const [footer, ...blocks] = dataRequests();
    assert.ok(footer && blocks.length >= 1, `${dataRequests().length} requests`);
    assert.deepEqual(reports[0], { loaded: 0, total: bytesOf(blocks) });
    assert.deepEqual(reports.at(-1), { loaded: bytesOf(blocks), total: bytesOf(blocks) });
    atlas.close();
  });

  it("an aborted read stops calling back", async () => {
    const name = "large_window";
    const want = expected(name).datasets[0];
    const array = want.arrays[0];
    const atlas = await Atlas.open(url(name, "/~slow"), SMALL_PROBE);
    const ds = atlas.dataset(want.name);
    await ds.layout(array.name);
    const controller = new AbortController();
    const reports = [];
    const reading = ds.read(array.name, {
      signal: controller.signal,
      onProgress: (p) => {
        reports.push({ ...p });
        controller.abort();
      },
    });
    await assert.rejects(reading, (e) => e instanceof AtlasError && e.code === "Aborted");
    await new Promise((r) => setTimeout(r, 700)); // the slow answer lands meanwhile
    assert.equal(reports.length, 1, JSON.stringify(reports));
    assert.equal(reports[0].loaded, 0);
    assert.ok(reports[0].total > 0);
    atlas.close();
  });
});
