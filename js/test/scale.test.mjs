// 100,000 datasets (or as many as ATLAS_SCALE_DATASETS asked for) over HTTP
// with default options (64 MiB of wasm memory):
// a segment footer of 32 MB is read by ranges, never whole. Written by
// tests/reader_scale.rs (its ignored test write_scale_fixture) into
// $ATLAS_FIXTURES/scale with samples of what it wrote.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Atlas } from "atlas-wasm";
import { FIXTURES } from "./expect.mjs";
import { startServer } from "./server.mjs";

const DIR = join(FIXTURES, "scale");
const want = JSON.parse(readFileSync(join(DIR, "samples.json"), "utf8"));

let server;
before(async () => {
  server = await startServer({ root: DIR });
});
after(() => server.close());

const gets = () => server.log.filter((e) => e.method === "GET");
const bytes = () => gets().reduce((sum, e) => sum + e.bytes, 0);

describe(`a collection of ${want.datasets.toLocaleString("en")} datasets, default options`, () => {
  it("reads one dataset's value in a few small requests, and another in fewer", async () => {
    for (const sample of want.samples.filter((s) => s.value)) {
      server.reset();
      const atlas = await Atlas.open(server.url + "/");
      assert.equal(atlas.listDatasets().length, want.datasets);
      server.reset();
      const read = await atlas.dataset(sample.name).read("value");
      assert.deepEqual([...read.data], sample.value, sample.name);
      // Root; row, run, pools and block rows; the block.
      assert.ok(gets().length <= 6, `${sample.name}: ${gets().map((e) => e.range)}`);
      assert.ok(bytes() <= (64 << 10) + want.block, `${sample.name}: ${bytes()} bytes`);
      const other = want.samples.find((s) => s.value && s.name !== sample.name);
      server.reset();
      assert.deepEqual([...(await atlas.dataset(other.name).read("value")).data], other.value);
      // At a million the other row's page, its run and its block rows are
      // three pages, asked at once; then the block.
      assert.ok(gets().length <= 4, `then ${other.name}: ${gets().map((e) => e.range)}`);
      atlas.close();
    }
  });

  it("answers every call on one dataset", async () => {
    const atlas = await Atlas.open(server.url + "/");
    for (const sample of want.samples) {
      const ds = atlas.dataset(sample.name);
      const attributes = await ds.attributes();
      assert.equal(Number(attributes.platform), sample.platform);
      assert.equal(attributes.site, sample.site);
      if (!sample.value) continue;
      assert.deepEqual((await ds.layout("value")).shape, [want.length]);
      assert.equal((await ds.arrayAttributes("value")).units, "degC");
      assert.equal(Number((await ds.stats("value")).rowCount), want.length);
      const window = await ds.read("value", { start: [5], shape: [3] });
      assert.deepEqual([...window.data], sample.value.slice(5, 8));
    }
  });

  it("reads 1,000 neighbours across in a few requests", async () => {
    const atlas = await Atlas.open(server.url + "/");
    server.reset();
    const stacked = await atlas.readAcross("value", { datasets: want.neighbours });
    assert.equal(want.neighbours.length, 1000);
    assert.deepEqual(stacked.shape, [1000, want.length]);
    assert.deepEqual([...stacked.data], want.neighbourValues);
    assert.ok(gets().length <= 12, `${gets().length} requests`);
  });

  it("streams the calls over every dataset through the budget", async () => {
    const atlas = await Atlas.open(server.url + "/");
    const stats = await atlas.arrayStats("value");
    assert.equal(Number(stats.rowCount), want.valueStats.rowCount);
    assert.equal(stats.min, want.valueStats.min);
    assert.equal(stats.max, want.valueStats.max);
    assert.equal((await atlas.arrayStatsByDataset("value")).length, want.withValue);
    const platforms = await atlas.attributesByDataset(null, "platform");
    assert.equal(Object.keys(platforms).length, want.datasets);
    assert.equal(Number(platforms[want.samples[4].name]), want.samples[4].platform);
  });
});
