// Delta tables with column mapping and with deletion vectors, read by
// atlas-wasm/atria in headless Chromium (test/page.mjs) over HTTP from
// other origins (test/server.mjs, CORS): the corpus's `mapped` cache (modes
// name and id) and the deletion-vector tables committed under
// tests/atria/delta-dv. Every row is held to the expectations the Node
// tests hold theirs to (atria-expect.mjs, atria-dv-expect.mjs).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertDvTable, DV_FILE, DV_TABLES, DV_TABLE_NAMES } from "./atria-dv-expect.mjs";
import { CORPUS, assertMappedSplit, expectedAtria } from "./atria-expect.mjs";
import { openAtriaPage } from "./page.mjs";
import { startServer } from "./server.mjs";

const expected = expectedAtria();
let page;
let corpus;
let tables;

before(async () => {
  corpus = await startServer({ root: CORPUS });
  tables = await startServer({ root: DV_TABLES });
  page = await openAtriaPage();
});
after(async () => {
  await page?.close();
  await corpus?.close();
  await tables?.close();
});

describe("Delta tables with column mapping and deletion vectors in headless Chromium", () => {
  it("column-mapped splits (modes name and id): logical column names, every row as delta-rs reads it", async () => {
    const got = await page.page.evaluate(async (url) => {
      const cache = await window.atria.AtriaCache.open(url);
      const splits = {};
      for (const name of cache.splits) {
        const split = await cache.split(name);
        const rows = [];
        for await (const row of split.rows()) rows.push(window.canon.canonical(row));
        splits[name] = { columns: split.columns.map((c) => c.name), rows };
      }
      return { backend: cache.backend, splits };
    }, `${corpus.url}/mapped/`);
    assert.equal(got.backend, "deltalake");
    assert.deepEqual(Object.keys(got.splits), Object.keys(expected.column_mapping));
    for (const [name, split] of Object.entries(got.splits)) assertMappedSplit(split, expected, name);
  });

  for (const name of DV_TABLE_NAMES) {
    it(`deletion vectors, ${name}: only the live rows, by row() and by rows(), as delta-rs reads them`, async () => {
      const got = await page.page.evaluate(async (url) => {
        const cache = await window.atria.AtriaCache.open(url);
        const split = await cache.split("train");
        const byIndex = [];
        for (let i = 0; i < split.numRows; i++) byIndex.push(window.canon.canonical(await split.row(i)));
        const iterated = [];
        for await (const row of split.rows()) iterated.push(window.canon.canonical(row));
        return { backend: cache.backend, numRows: split.numRows, byIndex, iterated };
      }, `${tables.url}/${name}/`);
      assert.equal(got.backend, "deltalake");
      assertDvTable(got, name);
    });
  }

  it("table-with-dv-small: the deletion vector file is one ranged GET of its 45 bytes", async () => {
    await page.page.evaluate(async (url) => {
      window.dvSplit = await (await window.atria.AtriaCache.open(url)).split("train");
    }, `${tables.url}/table-with-dv-small/`);
    tables.reset();
    const values = await page.page.evaluate(async () => {
      const values = [];
      for await (const row of window.dvSplit.rows()) values.push(Number(row.value));
      return values;
    });
    assert.deepEqual(values, [1, 2, 3, 4, 5, 6, 7, 8]);
    const dv = tables.log.filter((e) => e.method === "GET" && e.url.endsWith(DV_FILE));
    assert.equal(dv.length, 1, JSON.stringify(tables.log.map((e) => `${e.method} ${e.url}`)));
    assert.equal(dv[0].range, "bytes=0-44");
  });
});
