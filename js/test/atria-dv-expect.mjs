// The Delta tables with deletion vectors committed under tests/atria/delta-dv
// (written by Spark and Databricks, from delta-rs and delta-kernel-rs; a
// SOURCE.md beside each) and what delta-rs reads from each (expected.json
// beside it), for the tests of atlas-wasm/atria in Node and Chromium.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// js/scripts/test.sh exports ATLAS_DELTA_DV; from a checkout, it is beside js/.
const here = dirname(fileURLToPath(import.meta.url));
export const DV_TABLES = process.env.ATLAS_DELTA_DV ?? join(here, "../../tests/atria/delta-dv");
if (!existsSync(join(DV_TABLES, "table-with-dv-small", "expected.json"))) {
  throw new Error(`no deletion vector tables in ${DV_TABLES}: set ATLAS_DELTA_DV to tests/atria/delta-dv`);
}

/** Every table, each read as the split `train` of a cache. */
export const DV_TABLE_NAMES = ["table-with-dv-small", "table-with-inline-dv", "table_with_deletion_logs", "log-replay-dv-key-cases"];

/** table-with-dv-small's deletion vector file (45 bytes: values 0 and 9 deleted). */
export const DV_FILE = "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin";

/** `{num_rows, rows}`: the live rows delta-rs reads, in table order. */
export const expectedDv = (name) => JSON.parse(readFileSync(join(DV_TABLES, name, "expected.json"), "utf8"));

/**
 * Holds a table as read (`{numRows, byIndex: canonical rows by row(i),
 * iterated: by rows()}`) to what delta-rs reads: only the live rows, in
 * table order, both ways.
 */
export function assertDvTable(got, name) {
  const want = expectedDv(name);
  assert.equal(got.numRows, want.num_rows, `${name}: numRows`);
  assert.deepEqual(got.byIndex, want.rows, `${name}: row(i)`);
  assert.deepEqual(got.iterated, want.rows, `${name}: rows()`);
}
