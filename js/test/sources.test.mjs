// One conformance walk over every source that is not HTTP, and the API's
// behaviour at its edges: errors, windows, close.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Atlas, AtlasError } from "atlas-wasm";
import { FIXTURES, checkCollection, expected, sameValues, window } from "./expect.mjs";

const file = (name, f = "data.atlas") => readFileSync(join(FIXTURES, name, f));
const WALKED = ["every_dtype_lz4", "attributes_every_variant", "deleted_datasets", "python_netcdf", "empty_collection"];

/** `{data, mask}` of a fixture, as each kind of source. */
const KINDS = {
  bytes: (name) => ({ data: Atlas.fromBytes(file(name)), mask: maskOf(name, (b) => Atlas.fromBytes(b)) }),
  blob: (name) => ({ data: Atlas.fromBlob(new Blob([file(name)])), mask: maskOf(name, (b) => Atlas.fromBlob(new Blob([b]))) }),
  "user object": (name) => {
    const bytes = file(name);
    return { data: { size: async () => bytes.length, read: async (o, n) => bytes.slice(o, o + n) }, mask: maskOf(name, (b) => ({ size: b.length, read: async (o, n) => b.subarray(o, o + n) })) };
  },
};

function maskOf(name, make) {
  try {
    return make(file(name, "deleted.mask"));
  } catch {
    return null;
  }
}

async function rejects(promise, code) {
  await assert.rejects(promise, (e) => e instanceof AtlasError && e.code === code);
}

for (const [kind, sources] of Object.entries(KINDS)) {
  describe(`${kind} sources read like atlas-rust`, () => {
    for (const name of WALKED) {
      it(name, async () => {
        const atlas = await Atlas.open(sources(name));
        await checkCollection(atlas, expected(name));
        atlas.close();
      });
    }
  });
}

describe("edges of the API", () => {
  it("errors carry stable codes", async () => {
    const atlas = await Atlas.open({ data: Atlas.fromBytes(file("every_dtype_zstd")) });
    assert.throws(() => atlas.dataset("nope"), (e) => e instanceof AtlasError && e.code === "DatasetNotFound");
    const ds = atlas.dataset("chunked");
    await rejects(ds.read("nope"), "ArrayNotFound");
    await rejects(ds.read("int8", { start: [8], shape: [5] }), "OutOfBounds");
    await rejects(ds.read("int8", { start: [0, 0], shape: [1, 1] }), "OutOfBounds");
    await rejects(ds.read("int8", { start: [0.5], shape: [1] }), "InvalidArgument");
    await rejects(ds.read("int8", { start: [0] }), "InvalidArgument");
    await rejects(Atlas.open({ data: Atlas.fromBytes(new Uint8Array(100)) }), "NotAnAtlasCollection");
    await rejects(Atlas.open("not a url"), "InvalidArgument");
    await rejects(Atlas.open("http://127.0.0.1:9/x", { headers: { Authorization: "Bearer …" } }), "InvalidArgument");
    await rejects(Atlas.open({ data: new Uint8Array(4) }), "InvalidArgument");
    await rejects(Atlas.open({ data: { read: async () => new Uint8Array(0) } }), "InvalidArgument");
    atlas.close();
  });

  it("a source that answers short is an Io error, never data", async () => {
    const bytes = file("every_dtype_zstd");
    const short = { size: bytes.length, read: async (o, n) => bytes.subarray(o, o + n - 1) };
    await rejects(Atlas.open({ data: short }), "Io");
    const thrower = { size: bytes.length, read: async () => { throw new Error("disk on fire"); } };
    await assert.rejects(Atlas.open({ data: thrower }), (e) => e.code === "Io" && /disk on fire/.test(e.message));
  });

  it("reads windows of every rank", async () => {
    const want = expected("ranks_and_shapes");
    const atlas = await Atlas.open({ data: Atlas.fromBytes(file("ranks_and_shapes")) });
    let checked = 0;
    for (const d of want.datasets) {
      for (const a of d.arrays) {
        if (a.shape.some((s) => s < 2)) continue;
        const start = a.shape.map(() => 1);
        const shape = a.shape.map((s) => s - 1);
        const read = await atlas.dataset(d.name).read(a.name, { start, shape });
        assert.deepEqual(read.shape, shape);
        sameValues(read, window(a.values, a.shape, start, shape), a.dtype, `${d.name}/${a.name}`);
        checked++;
      }
    }
    atlas.close();
    assert.ok(checked >= 6, `windows checked: ${checked}`);
  });

  it("close frees the handle; its datasets stop working", async () => {
    const atlas = await Atlas.open({ data: Atlas.fromBytes(file("every_dtype_zstd")) });
    const ds = atlas.dataset("chunked");
    await ds.read("int8");
    atlas.close();
    atlas.close(); // twice is fine
    assert.throws(() => atlas.listDatasets(), (e) => e.code === "InvalidArgument");
    await rejects(ds.read("int8"), "InvalidArgument");
  });
});

describe("the first requests of an open", () => {
  /** A user source that counts its tail reads by length. */
  const counted = (bytes) => {
    const tails = [];
    return {
      tails,
      source: {
        size: bytes.length,
        read: async (o, n) => bytes.slice(o, o + n),
        readTail: async (n) => (tails.push(n), { size: bytes.length, bytes: bytes.slice(Math.max(0, bytes.length - n)) }),
      },
    };
  };

  it("asks each tail once, whether it left before the module was ready or not", async () => {
    for (const tailProbeBytes of [undefined, 1000, 8 * 1024 * 1024, 16 * 1024 * 1024]) {
      const data = counted(file("deleted_datasets"));
      const mask = counted(file("deleted_datasets", "deleted.mask"));
      const atlas = await Atlas.open({ data: data.source, mask: mask.source }, { tailProbeBytes });
      assert.deepEqual(data.tails, [tailProbeBytes ?? 65536], `tailProbeBytes ${tailProbeBytes}`);
      assert.deepEqual(mask.tails, [65536]);
      assert.equal(atlas.deletedCount, expected("deleted_datasets").total_datasets - expected("deleted_datasets").dataset_count);
      atlas.close();
    }
  });

  it("leaves before the open waits for the wasm module", async () => {
    const data = counted(file("deleted_datasets"));
    const opening = Atlas.open({ data: data.source });
    assert.deepEqual(data.tails, [65536], "asked within the call, before its first await");
    (await opening).close();
    assert.deepEqual(data.tails, [65536]);
  });
});
