// Holds what a consumer app read (shared/read.js) against the fixture's
// expected.json, with the package's own test helpers, and says in one line
// what it read.
import assert from "node:assert/strict";
import { expected, sameValues } from "../test/expect.mjs";

const WIDE = new Set(["int64", "uint64", "timestamp_ns"]);
const FLOAT = new Set(["float32", "float64"]);

/** A JSON-safe value of read.js back as the package answered it. */
function revive(value, dtype) {
  if (WIDE.has(dtype)) return BigInt(value);
  if (FLOAT.has(dtype) && typeof value === "string") return Number(value);
  if (dtype === "binary") return Uint8Array.from(value.match(/../g) ?? [], (h) => parseInt(h, 16));
  return value;
}

const revived = (r) => ({ dtype: r.dtype, data: r.data.map((v) => revive(v, r.dtype)) });

/** Throws unless `result` is every_dtype_zstd as atlas-rust dumped it; returns a summary line. */
export function check(result, fixture = "every_dtype_zstd") {
  assert.ok(!result.failed, `the app failed: ${result.failed}`);
  const want = expected(fixture);
  assert.deepEqual(result.datasets, want.datasets.map((d) => d.name));
  let count = 0;
  for (const d of want.datasets) {
    for (const a of d.arrays) {
      const got = result.arrays[`${d.name}/${a.name}`];
      assert.ok(got, `${d.name}/${a.name} was not read`);
      assert.deepEqual(got.shape, a.shape, `${d.name}/${a.name}: shape`);
      sameValues(revived(got), a.values, a.dtype, `${d.name}/${a.name}`);
      count++;
    }
  }
  const int32 = want.datasets[0].arrays.find((a) => a.name === "int32");
  assert.deepEqual(result.across.datasets, ["chunked"]);
  assert.deepEqual(result.across.shape, [1, ...int32.shape]);
  sameValues(revived({ dtype: "int32", data: result.across.data }), int32.values, "int32", "readAcross int32");
  assert.deepEqual(result.across.skipped, [{ dataset: "unchunked", dtype: "int32", shape: [2, 3] }]);
  assert.equal(result.error, "DatasetNotFound");
  const f64 = result.arrays["chunked/float64"].data.slice(0, 3).join(", ");
  return `${count} arrays of ${result.datasets.join(", ")} (chunked/float64 starts ${f64}); readAcross int32 ${JSON.stringify(result.across.shape)}, skipped unchunked; unknown dataset -> ${result.error}`;
}
