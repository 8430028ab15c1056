// `atlas.readAcross`: one array across datasets, stacked, over HTTP, against
// the values atlas-rust (and atlas-python) dumped for each dataset.
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Atlas, AtlasError } from "atlas-wasm";
import { FIXTURES, expected, fixtureNames, sameValues, window } from "./expect.mjs";
import { startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer({ root: FIXTURES });
});
after(() => server.close());

const url = (name, knob = "") => `${server.url}${knob}/${name}`;

async function rejects(promise, code, pattern) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof AtlasError, `an AtlasError, not ${error}`);
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

/** The dumped array of one dataset. */
function dumped(want, dataset, array) {
  const ds = want.datasets.find((d) => d.name === dataset);
  assert.ok(ds, `no dataset ${dataset} in the dump`);
  return ds.arrays.find((a) => a.name === array);
}

/** A stacked answer against each listed dataset's dumped values (or windows of them). */
function sameStack(result, want, array, names, where, cut = (a) => a.values) {
  assert.deepEqual(result.datasets, names, `${where}: datasets`);
  const parts = names.map((n) => dumped(want, n, array));
  const values = parts.flatMap(cut);
  assert.equal(result.shape[0], names.length, `${where}: first axis`);
  assert.equal(result.shape.slice(1).reduce((a, b) => a * b, 1) * names.length, values.length, `${where}: shape`);
  sameValues(result, values, parts[0].dtype, where);
}

const DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "string", "binary", "timestamp_ns"];
const TYPED = { int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array, float32: Float32Array, float64: Float64Array, timestamp_ns: BigInt64Array };

describe("every dtype stacks value for value", () => {
  for (const name of ["every_dtype_zstd", "every_dtype_lz4", "every_dtype_uncompressed"]) {
    it(name, async () => {
      const want = expected(name);
      const atlas = await Atlas.open(url(name));
      try {
        for (const dtype of DTYPES) {
          const at = `${name}/${dtype}`;
          // "chunked" holds [10], "unchunked" [2, 3]: each stacks alone, or with itself.
          for (const names of [["unchunked"], ["chunked", "chunked"]]) {
            const result = await atlas.readAcross(dtype, { datasets: names });
            assert.deepEqual(result.shape, [names.length, ...dumped(want, names[0], dtype).shape], at);
            sameStack(result, want, dtype, names, at);
            if (TYPED[dtype]) assert.ok(result.data instanceof TYPED[dtype], `${at}: one ${TYPED[dtype].name}`);
            else assert.ok(Array.isArray(result.data), `${at}: an array`);
            assert.equal(result.skipped, undefined, `${at}: skipped only under skip`);
          }
          // Across both the shapes differ: an error naming the other, or a skip.
          await rejects(atlas.readAcross(dtype), "InvalidArgument", /'unchunked' holds/);
          const some = await atlas.readAcross(dtype, { skip: true });
          sameStack(some, want, dtype, ["chunked"], `${at} skip`);
          assert.deepEqual(some.skipped, [{ dataset: "unchunked", dtype, shape: [2, 3] }], at);
          // A window fits both when the ranks agree; here they do not.
          const corner = await atlas.readAcross(dtype, { datasets: ["unchunked"], start: [1, 1], shape: [1, 2] });
          sameStack(corner, want, dtype, ["unchunked"], `${at} window`, (a) => window(a.values, a.shape, [1, 1], [1, 2]));
        }
      } finally {
        atlas.close();
      }
    });
  }
});

describe("many datasets in one read", () => {
  it("ten thousand datasets, one answer, fewer requests than reading each", async () => {
    const name = "ten_thousand_datasets";
    const want = expected(name);
    const atlas = await Atlas.open(url(name));
    const names = atlas.listDatasets();
    server.reset();
    const reports = [];
    const result = await atlas.readAcross("temperature", { onProgress: (p) => reports.push(p) });
    assert.deepEqual(result.shape, [10_000, 3]);
    assert.ok(result.data instanceof Float32Array);
    sameStack(result, want, "temperature", names, name);
    const data = server.log.filter((e) => e.url.endsWith("/data.atlas"));
    const fetched = data.reduce((n, e) => n + e.bytes, 0);
    assert.ok(data.length <= 3, `${data.length} requests: the segment's footer, then its blocks coalesced`);
    assert.ok(fetched <= statSync(join(FIXTURES, name, "data.atlas")).size, `${fetched} bytes`);
    // The segment's open is not counted (docs/js-api.md, "Progress"); what the plan requests is.
    const [first, last] = [reports[0], reports.at(-1)];
    assert.ok(first.loaded === 0 && last.loaded === first.total && first.total <= fetched, JSON.stringify(reports));

    // `flag` is a scalar in every thousandth dataset.
    const flags = await atlas.readAcross("flag");
    const declaring = want.datasets.filter((d) => d.arrays.some((a) => a.name === "flag")).map((d) => d.name);
    assert.deepEqual(flags.shape, [10, ...dumped(want, declaring[0], "flag").shape]);
    sameStack(flags, want, "flag", declaring, "flag");
    atlas.close();
  });

  it("deleted datasets stay out; a window of each stacks", async () => {
    const name = "deleted_datasets";
    const want = expected(name);
    const atlas = await Atlas.open(url(name));
    const live = want.datasets.filter((d) => d.arrays.some((a) => a.name === "x")).map((d) => d.name);
    sameStack(await atlas.readAcross("x"), want, "x", live, "x");
    const part = await atlas.readAcross("x", { start: [1], shape: [2] });
    sameStack(part, want, "x", live, "x window", (a) => window(a.values, a.shape, [1], [2]));
    assert.ok(existsSync(join(FIXTURES, name, "deleted.mask")));
    await rejects(atlas.readAcross("x", { datasets: ["item_00"] }), "DatasetNotFound");
    atlas.close();
  });

  it("datasets in the order listed, a window across many blocks", async () => {
    const name = "small_blocks";
    const want = expected(name);
    const atlas = await Atlas.open(url(name));
    const names = atlas.listDatasets().reverse();
    const [start, shape] = [[1510], [180]];
    const result = await atlas.readAcross("signal", { datasets: names, start, shape });
    sameStack(result, want, "signal", names, "signal", (a) => window(a.values, a.shape, start, shape));
    atlas.close();
  });

  it("atlas-python's collections", async () => {
    for (const name of fixtureNames().filter((n) => n.startsWith("python_"))) {
      const want = expected(name);
      const atlas = await Atlas.open(url(name));
      for (const array of atlas.listArrays()) {
        const result = await atlas.readAcross(array, { skip: true });
        sameStack(result, want, array, result.datasets, `${name}/${array}`);
        const declaring = want.datasets.filter((d) => d.arrays.some((a) => a.name === array)).map((d) => d.name);
        assert.deepEqual([...result.datasets, ...result.skipped.map((s) => s.dataset)].sort(), declaring.sort(), `${name}/${array}: stacked or skipped`);
      }
      atlas.close();
    }
  });
});

describe("what does not stack, and bad requests", () => {
  it("one name at five dtypes: named, or skipped", async () => {
    const name = "one_name_many_dtypes";
    const want = expected(name);
    const atlas = await Atlas.open(url(name));
    await rejects(atlas.readAcross("value"), "InvalidArgument", /'as_int64' holds int64.*'as_string' holds string.*'as_uint8'.*'as_float64'/);
    const some = await atlas.readAcross("value", { skip: true });
    sameStack(some, want, "value", ["as_float32"], "value");
    assert.deepEqual(
      some.skipped.map((s) => [s.dataset, s.dtype, s.shape]),
      [["as_int64", "int64", [3]], ["as_string", "string", [2]], ["as_uint8", "uint8", [2]], ["as_float64", "float64", [2, 2]]],
    );
    // `partial` is [2] in one dataset and [3] in another: a window stacks them.
    const partial = await atlas.readAcross("partial", { start: [0], shape: [2] });
    assert.deepEqual(Array.from(partial.data), [1, 2, -1, 0]);
    await rejects(atlas.readAcross("partial"), "InvalidArgument", /'as_string' holds int32 \[3\]/);
    await rejects(atlas.readAcross("partial", { start: [2], shape: [1] }), "OutOfBounds", /as_float32/);
    atlas.close();
  });

  it("typed errors, abort, close", async () => {
    const atlas = await Atlas.open(url("every_dtype_zstd"));
    await rejects(atlas.readAcross("int8", { datasets: ["nope"] }), "DatasetNotFound");
    await rejects(atlas.readAcross("nothing"), "ArrayNotFound");
    await rejects(atlas.readAcross("nothing", { datasets: ["chunked"] }), "ArrayNotFound", /'chunked'/);
    await rejects(atlas.readAcross("int8", { datasets: [] }), "InvalidArgument");
    await rejects(atlas.readAcross("int8", { datasets: "chunked" }), "InvalidArgument");
    await rejects(atlas.readAcross("int8", { skip: "yes" }), "InvalidArgument");
    await rejects(atlas.readAcross("int8", { start: [0] }), "InvalidArgument");
    await rejects(atlas.readAcross("int8", { datasets: ["chunked"], start: [-1], shape: [1] }), "InvalidArgument");
    await rejects(atlas.readAcross("int8", { datasets: ["chunked"], start: [0], shape: [11] }), "OutOfBounds");
    await rejects(atlas.readAcross("int8", { signal: AbortSignal.abort() }), "Aborted");
    atlas.close();
    await rejects(atlas.readAcross("int8"), "InvalidArgument", /closed/);

    const slow = await Atlas.open(url("large_window", "/~slow"));
    const controller = new AbortController();
    const read = slow.readAcross(slow.dataset(slow.listDatasets()[0]).listArrays()[0], { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await rejects(read, "Aborted");
    slow.close();
  });

  it("iterate yields every dataset's array a batch at a time", async () => {
    const want = expected("every_dtype_zstd");
    const atlas = await Atlas.open(url("every_dtype_zstd"));
    // int32 is [10] in one dataset and [2, 3] in the other: the second is read on its own.
    const seen = [];
    for await (const { name, shape, data } of atlas.iterate("int32", { batch: 1 })) {
      const dump = dumped(want, name, "int32");
      assert.deepEqual(shape, dump.shape, `${name}: shape`);
      sameValues({ dtype: "int32", data }, dump.values, "int32", `${name}/int32`);
      seen.push(name);
    }
    assert.deepEqual(seen, ["chunked", "unchunked"]);
    const strings = [];
    for await (const { name, data } of atlas.iterate("string", { datasets: ["unchunked", "chunked"] })) strings.push([name, data]);
    assert.deepEqual(strings.map(([n]) => n), ["unchunked", "chunked"]);
    assert.deepEqual(Array.from(strings[1][1]), dumped(want, "chunked", "string").values);
    await assert.rejects(atlas.iterate("int32", { batch: 0 }).next(), (e) => e.code === "InvalidArgument");
    atlas.close();

    // Ten thousand datasets in batches of 1,000: ten reads, every value.
    const many = expected("ten_thousand_datasets");
    const big = await Atlas.open(url("ten_thousand_datasets"));
    server.reset();
    let count = 0;
    for await (const { name, data } of big.iterate("temperature", { batch: 1000 })) {
      const dump = dumped(many, name, "temperature");
      sameValues({ dtype: "float32", data }, dump.values, "float32", `${name}/temperature`);
      count++;
    }
    assert.equal(count, 10000);
    big.close();
  });
});
