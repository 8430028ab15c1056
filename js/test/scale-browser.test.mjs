// The scale collection (test/scale.test.mjs: 100,000 datasets, or as many
// as ATLAS_SCALE_DATASETS asked tests/reader_scale.rs to write) in headless
// Chromium, default options: one dataset in a few small requests, 1,000
// neighbours across, and a call over every dataset through the budget.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FIXTURES } from "./expect.mjs";
import { openPage } from "./page.mjs";
import { startServer } from "./server.mjs";

const DIR = join(FIXTURES, "scale");
const want = JSON.parse(readFileSync(join(DIR, "samples.json"), "utf8"));

let page, closePage, data;
before(async () => {
  ({ page, close: closePage } = await openPage());
  data = await startServer({ root: DIR }); // another origin, as a CDN would be
});
after(async () => {
  await closePage?.();
  await data?.close();
});

const gets = () => data.log.filter((e) => e.method === "GET");
const bytes = () => gets().reduce((sum, e) => sum + e.bytes, 0);

describe(`in headless Chromium, ${want.datasets.toLocaleString("en")} datasets`, () => {
  it("reads one dataset in a few small requests, then another in fewer", async () => {
    const [first, second] = want.samples.filter((s) => s.value);
    const run = (step, names) =>
      page.evaluate(
        async ([url, step, names]) => {
          const { Atlas } = window.atlasWasm;
          if (step === "open") {
            window.scaleAtlas = await Atlas.open(url);
            return window.scaleAtlas.listDatasets().length;
          }
          const read = await window.scaleAtlas.dataset(names[0]).read("value");
          return Array.from(read.data);
        },
        [`${data.url}/`, step, names],
      );
    assert.equal(await run("open"), want.datasets);
    data.reset();
    assert.deepEqual(await run("read", [first.name]), first.value);
    assert.ok(gets().length <= 6, `${first.name}: ${gets().map((e) => e.range)}`);
    assert.ok(bytes() <= (64 << 10) + want.block, `${first.name}: ${bytes()} bytes`);
    data.reset();
    assert.deepEqual(await run("read", [second.name]), second.value);
    // The other row's page, its run and its block rows, asked at once; then the block.
    assert.ok(gets().length <= 4, `then ${second.name}: ${gets().map((e) => e.range)}`);
  });

  it("reads 1,000 neighbours across and streams the stats of every dataset", async () => {
    data.reset();
    const got = await page.evaluate(
      async ([url, neighbours]) => {
        const atlas = await window.atlasWasm.Atlas.open(url);
        const stacked = await atlas.readAcross("value", { datasets: neighbours });
        const stats = await atlas.arrayStats("value");
        atlas.close();
        return { shape: stacked.shape, data: Array.from(stacked.data), rowCount: Number(stats.rowCount), max: stats.max };
      },
      [`${data.url}/`, want.neighbours],
    );
    assert.deepEqual(got.shape, [1000, want.length]);
    assert.deepEqual(got.data, want.neighbourValues);
    assert.equal(got.rowCount, want.valueStats.rowCount);
    assert.equal(got.max, want.valueStats.max);
  });
});
