// Delta deletion vectors in atlas-wasm/atria, in Node over HTTP: the tables
// of tests/atria/delta-dv (written by Spark and Databricks, from delta-rs and
// delta-kernel-rs; a SOURCE.md beside each) served by test/server.mjs, each
// read as the split `train` of a cache, its live rows equal to what delta-rs
// reads (expected.json), the deletion vector file fetched by one ranged GET.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { AtriaCache, AtriaError } from "atlas-wasm/atria";
import { canonical } from "./atria-canonical.mjs";
import { startServer } from "./server.mjs";

// js/scripts/test.sh exports ATLAS_DELTA_DV; from a checkout, it is beside js/.
const here = dirname(fileURLToPath(import.meta.url));
const TABLES = process.env.ATLAS_DELTA_DV ?? join(here, "../../tests/atria/delta-dv");
if (!existsSync(join(TABLES, "table-with-dv-small", "expected.json"))) {
  throw new Error(`no deletion vector tables in ${TABLES}: set ATLAS_DELTA_DV to tests/atria/delta-dv`);
}

const TABLE_NAMES = ["table-with-dv-small", "table-with-inline-dv", "table_with_deletion_logs", "log-replay-dv-key-cases"];
const DV_FILE = "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin";

let server;
before(async () => {
  server = await startServer({ root: TABLES });
});
after(() => server?.close());

const expected = (name) => JSON.parse(readFileSync(join(TABLES, name, "expected.json"), "utf8"));
const gets = () => server.log.filter((e) => e.method === "GET");

describe("Delta deletion vectors over HTTP", () => {
  for (const name of TABLE_NAMES) {
    it(`${name}: only the live rows, by row() and by rows(), as delta-rs reads them`, async () => {
      const want = expected(name);
      const cache = await AtriaCache.open(`${server.url}/${name}/`);
      assert.equal(cache.backend, "deltalake");
      const split = await cache.split("train");
      assert.equal(split.numRows, want.num_rows);
      const byIndex = [];
      for (let i = 0; i < split.numRows; i++) byIndex.push(canonical(await split.row(i)));
      assert.deepEqual(byIndex, want.rows);
      const iterated = [];
      for await (const row of split.rows()) iterated.push(canonical(row));
      assert.deepEqual(iterated, want.rows);
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
