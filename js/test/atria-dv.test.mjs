// Delta deletion vectors in atlas-wasm/atria, in Node over HTTP: the tables
// of tests/atria/delta-dv (written by Spark and Databricks, from delta-rs and
// delta-kernel-rs; a SOURCE.md beside each) served by test/server.mjs, each
// read as the split `train` of a cache, its live rows equal to what delta-rs
// reads (expected.json), the deletion vector file fetched by one ranged GET.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AtriaCache, AtriaError } from "atlas-wasm/atria";
import { canonical } from "./atria-canonical.mjs";
import { assertDvTable, DV_FILE, DV_TABLES, DV_TABLE_NAMES } from "./atria-dv-expect.mjs";
import { startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer({ root: DV_TABLES });
});
after(() => server?.close());
const gets = () => server.log.filter((e) => e.method === "GET");

describe("Delta deletion vectors over HTTP", () => {
  for (const name of DV_TABLE_NAMES) {
    it(`${name}: only the live rows, by row() and by rows(), as delta-rs reads them`, async () => {
      const cache = await AtriaCache.open(`${server.url}/${name}/`);
      assert.equal(cache.backend, "deltalake");
      const split = await cache.split("train");
      const byIndex = [];
      for (let i = 0; i < split.numRows; i++) byIndex.push(canonical(await split.row(i)));
      const iterated = [];
      for await (const row of split.rows()) iterated.push(canonical(row));
      assertDvTable({ numRows: split.numRows, byIndex, iterated }, name);
      await assert.rejects(split.row(split.numRows), (e) => e instanceof AtriaError && e.code === "OutOfBounds");
    });
  }

  it("table-with-dv-small: the deleted values 0 and 9 are gone; the DV file is one ranged GET of its 45 bytes", async () => {
    const split = await (await AtriaCache.open(`${server.url}/table-with-dv-small/`)).split("train");
    server.reset();
    const values = [];
    for await (const row of split.rows()) values.push(Number(row.value));
    assert.deepEqual(values, [1, 2, 3, 4, 5, 6, 7, 8]);
    const dv = gets().filter((e) => e.url.endsWith(DV_FILE));
    assert.equal(dv.length, 1, JSON.stringify(gets().map((e) => e.url)));
    assert.equal(dv[0].range, "bytes=0-44");
  });
});
