// Start-up of both entries (dist/start.js): a module is initialised once, a
// failed start is retried by the next open, and the entry's error class and
// the driver are handed to the module once. Then the same through the real
// files: atlas.js and atria.js imported without their runtime entry refuse
// to open, and open once the entry has bound the module.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { it } from "node:test";
import { pathToFileURL } from "node:url";
import { CORPUS } from "./atria-expect.mjs";
import { FIXTURES, expected } from "./expect.mjs";

const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));
const dist = (file) => import(pathToFileURL(join(PACKAGE, "dist", file)).href);

class TestError extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

/** A wasm-bindgen module's two setters, recording what they were given. */
function recordingGlue() {
  const given = { errorClasses: [], drivers: [] };
  return { given, setErrorClass: (c) => given.errorClasses.push(c), setDriver: (d) => given.drivers.push(d) };
}

it("starts a module once, retries a failed start, and hands over the error class and driver once", async () => {
  const { startUp } = await dist("start.js");
  const { drive } = await dist("drive.js");
  const glue = recordingGlue();
  const wasm = startUp(glue, TestError, "some-entry");

  await assert.rejects(wasm.start(), (e) => {
    assert.ok(e instanceof TestError);
    assert.equal(e.code, "InvalidArgument");
    assert.equal(e.message, "import some-entry through its package entry, which loads the wasm module");
    return true;
  });

  let calls = 0;
  wasm.bind(async () => {
    calls += 1;
    if (calls === 1) throw new Error("the network went away");
  });
  await assert.rejects(wasm.start(), { message: "the network went away" });
  assert.deepEqual(glue.given, { errorClasses: [], drivers: [] }, "nothing is handed over before a start succeeds");

  const [first, second] = [wasm.start(), wasm.start()];
  assert.equal(first, second, "opens while it starts share one start");
  await first;
  await wasm.start();
  assert.equal(calls, 2);
  assert.deepEqual(glue.given, { errorClasses: [TestError], drivers: [drive] });
});

it("atlas.js without its runtime entry refuses to open, and opens once atlas-wasm is imported", async () => {
  const { Atlas } = await dist("atlas.js");
  const { AtlasError } = await dist("errors.js");
  const bytes = new Uint8Array(readFileSync(join(FIXTURES, "every_dtype_zstd", "data.atlas")));
  const open = () => Atlas.open({ data: Atlas.fromBytes(bytes) }, { decodeWorkers: 0 });
  await assert.rejects(open(), (e) => {
    assert.ok(e instanceof AtlasError);
    assert.equal(e.code, "InvalidArgument");
    assert.match(e.message, /^import atlas-wasm through its package entry/);
    return true;
  });

  await import("atlas-wasm"); // node.js binds the module: the next open starts it
  const atlas = await open();
  assert.deepEqual(atlas.listDatasets(), expected("every_dtype_zstd").datasets.map((d) => d.name).sort());
  atlas.close();
  // An error the core raises is the entry's class.
  await assert.rejects(Atlas.open({ data: Atlas.fromBytes(bytes.subarray(0, 100)) }), (e) => {
    assert.ok(e instanceof AtlasError, `not an AtlasError: ${e}`);
    assert.equal(e.code, "NotAnAtlasCollection");
    return true;
  });
});

it("atria.js without its runtime entry refuses to open, and opens once atlas-wasm/atria is imported", async () => {
  const { AtriaError, ParquetFile } = await dist("atria.js");
  const path = join(CORPUS, "parquet", "bit_packed_required.parquet");
  const bytes = new Uint8Array(readFileSync(path));
  const source = (b) => ({ size: b.length, read: async (offset, length) => b.subarray(offset, offset + length) });
  await assert.rejects(ParquetFile.open(source(bytes)), (e) => {
    assert.ok(e instanceof AtriaError);
    assert.equal(e.code, "InvalidArgument");
    assert.match(e.message, /^import atlas-wasm\/atria through its package entry/);
    return true;
  });

  await import("atlas-wasm/atria");
  const file = await ParquetFile.open(source(bytes));
  const truth = JSON.parse(readFileSync(join(CORPUS, "parquet", "expected.json"), "utf8")).bit_packed_required;
  assert.equal(file.numRows, truth.num_rows);
  assert.deepEqual(file.columns.map((c) => c.name), truth.columns);
  // An error the readers raise is the entry's class.
  await assert.rejects(ParquetFile.open(source(bytes.subarray(0, 100))), (e) => {
    assert.ok(e instanceof AtriaError, `not an AtriaError: ${e}`);
    return true;
  });
});
