// atlas-wasm/atria in Node, over HTTP (test/server.mjs serving the corpus
// tests/atria/make_corpus.sh wrote): every record, row, pointer and numpy
// value against expected.json, the request counts each call may make, and
// the typed errors.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Atlas, AtlasError } from "atlas-wasm";
import { AtriaCache, AtriaError } from "atlas-wasm/atria";
import { canonical, hex, resolveFields, resolvePointers } from "./atria-canonical.mjs";
import {
  CORPUS,
  assertFields,
  assertMappedSplit,
  assertPointers,
  assertUnrecoverable,
  COUNTS,
  inOrderOf,
  deltaFields,
  deltaRows,
  expectedAtria,
  msgpackRecords,
  pointerRows,
  unrecoverable,
} from "./atria-expect.mjs";
import { startServer } from "./server.mjs";

const expected = expectedAtria();
let server;
let base;

before(async () => {
  server = await startServer({ root: CORPUS });
  base = `${server.url}/${expected.config}/`;
});
after(() => server?.close());

/** The GETs the server saw since the last reset, as paths. */
const gets = () => server.log.filter((e) => e.method === "GET").map((e) => decodeURIComponent(new URL(e.url, "http://x").pathname));

/**
 * The config directory from disk as `{source, list}`; `asked` collects the
 * paths opened; while `hang.on`, reads never answer (their signals are kept).
 */
function fileStore({ asked = [], hang = { on: false, signals: [] }, config = expected.config } = {}) {
  const root = join(CORPUS, config);
  return {
    source: (path) => {
      asked.push(path);
      let bytes;
      try {
        bytes = new Uint8Array(readFileSync(join(root, path)));
      } catch {
        return null; // no such file: NotFound
      }
      return {
        size: bytes.length,
        read: (offset, length, signal) => {
          if (!hang.on) return Promise.resolve(bytes.subarray(offset, offset + length));
          hang.signals.push(signal);
          return new Promise(() => {});
        },
      };
    },
    list: async (dir) => {
      try {
        return readdirSync(join(root, dir)).sort();
      } catch {
        return [];
      }
    },
  };
}

async function rejects(promise, code) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof AtriaError, `an AtriaError, not ${e?.name}: ${e?.message}`);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

describe("a msgpack cache over HTTP", () => {
  it("opens: backend, splits", async () => {
    const cache = await AtriaCache.open(base);
    assert.equal(cache.backend, "msgpack");
    assert.deepEqual(cache.splits, Object.keys(expected.msgpack));
  });

  for (const name of Object.keys(expected.msgpack)) {
    it(`split ${name}: every record equals expected.json, by row() and by rows()`, async () => {
      const want = msgpackRecords(expected, name);
      const split = await (await AtriaCache.open(base)).split(name);
      assert.equal(split.name, name);
      assert.equal(split.numRows, want.length);
      assert.deepEqual(
        split.columns.map((c) => c.name),
        Object.keys(want[0]),
      );
      assert.equal(split.columns.find((c) => c.name === "pixels").type, "ndarray<uint8>");
      let i = 0;
      for await (const row of split.rows()) {
        assert.deepEqual(canonical(row), want[i], `record ${i}`);
        i++;
      }
      assert.equal(i, want.length);
      const last = want.length - 1;
      assert.deepEqual(canonical(await split.row(last)), want[last]);
    });
  }

  it("numpy values come as {dtype, shape, data} with typed arrays", async () => {
    const split = await (await AtriaCache.open(base)).split("train");
    const row = await split.row(1);
    assert.ok(row.pixels.data instanceof Uint8Array);
    assert.ok(row.boxes.data instanceof Float32Array);
    assert.ok(row.big_endian.data instanceof Int32Array);
    assert.deepEqual(Array.from(row.big_endian.data), [1, -2, 3]);
    assert.ok(row.ids.data instanceof BigUint64Array);
    assert.equal(row.ids.data[0], 2n ** 63n + 1n);
    assert.deepEqual(row.empty.shape, [0, 3]);
    assert.ok(row.empty.data instanceof Float64Array && row.empty.data.length === 0);
    assert.deepEqual(row.count, { dtype: "int64", shape: [], data: new BigInt64Array([-1n]) });
    assert.deepEqual(row.words.data, ["a", "bé", "ccc"]);
    assert.ok(row.image instanceof Uint8Array);
    assert.equal(row.nested.none, null);
  });

  it("a record is one request once the split is open; its bytes field is its content", async () => {
    const want = msgpackRecords(expected, "test");
    const split = await (await AtriaCache.open(base)).split("test");
    for (const i of [0, 3, want.length - 1]) {
      server.reset();
      await split.row(i);
      assert.equal(gets().length, 1, `record ${i}: ${gets()}`);
      assert.match(gets()[0], /\.msgpack$/);
      server.reset();
      assert.equal(hex(await split.content(i, "image")), want[i].image.$bin);
      assert.equal(gets().length, 1, `content of record ${i}: ${gets()}`);
      const check = await split.check(i, "image");
      assert.deepEqual(check, { pointer: "", ok: true, defect: null, recovered: false, member: null, naming: null, keyConvention: null });
    }
  });

  it("serves from {source, list}: listing instead of probing", async () => {
    const asked = [];
    const cache = await AtriaCache.open(fileStore({ asked }));
    assert.equal(cache.backend, "msgpack");
    assert.deepEqual(cache.splits, Object.keys(expected.msgpack));
    const split = await cache.split("train");
    const want = msgpackRecords(expected, "train");
    assert.deepEqual(canonical(await split.row(5)), want[5]);
    assert.ok(!asked.some((p) => p.startsWith("delta/")), `no probing: ${asked}`);
  });

  it("says what is wrong with a typed code", async () => {
    const cache = await AtriaCache.open(base);
    await rejects(cache.split("nope"), "NotFound");
    const split = await cache.split("train");
    await rejects(split.row(split.numRows), "OutOfBounds");
    await rejects(split.row(-1), "InvalidArgument");
    await rejects(split.row(1.5), "InvalidArgument");
    await rejects(split.content(0, "no_such_field"), "NotFound");
    await rejects(AtriaCache.open(`${server.url}/nothing-here/`), "NotFound");
    await rejects(AtriaCache.open({ source: () => null }), "NotFound");
    await rejects(AtriaCache.open(42), "InvalidArgument");
    await rejects(AtriaCache.open(`${server.url}/~down/${expected.config}/`, { retries: 0 }), "HttpStatus");
    const aborted = AbortSignal.abort();
    await rejects(split.row(0, { signal: aborted }), "Aborted");
    await rejects(AtriaCache.open(base, { signal: aborted }), "Aborted");
  });

  it("aborts a call in flight, and the read under it", async () => {
    const hang = { on: false, signals: [] };
    const split = await (await AtriaCache.open(fileStore({ hang }))).split("train");
    hang.on = true;
    const controller = new AbortController();
    const row = split.row(2, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await rejects(row, "Aborted");
    assert.equal(hang.signals.length, 1);
    assert.ok(hang.signals[0].aborted, "the source's read was aborted too");
  });
});

describe("the two entries side by side", () => {
  it("each module answers with its own error class", async () => {
    const split = await (await AtriaCache.open(base)).split("test");
    await assert.rejects(Atlas.open({ data: Atlas.fromBytes(new Uint8Array(64)) }), (e) => e instanceof AtlasError && !(e instanceof AtriaError) && e.code === "NotAnAtlasCollection");
    await rejects(split.row(split.numRows), "OutOfBounds");
    assert.deepEqual(canonical(await split.row(0)), msgpackRecords(expected, "test")[0]);
  });
});

describe("TAR pointers over HTTP", () => {
  for (const name of Object.keys(expected.tar)) {
    it(`split ${name}: every pointer verified or recovered, byte for byte`, async () => {
      const rows = pointerRows(expected, name);
      const cache = await AtriaCache.open(base);
      const counts = assertPointers(await resolvePointers(cache, rows), rows);
      assert.deepEqual(inOrderOf(counts, COUNTS.pointers[name]), COUNTS.pointers[name]);
    });
  }

  it("a pointer that reaches another member and cannot be recovered is BadPointer, saying what it reaches", async () => {
    const bad = unrecoverable(pointerRows(expected, "train"));
    const cache = await AtriaCache.open(base);
    const [result] = await resolvePointers(cache, [bad]);
    assertUnrecoverable(result, bad);
  });

  it("a right pointer is verified with one request", async () => {
    const rows = pointerRows(expected, "test").filter((r) => r.defect === null);
    for (const row of [rows[0], rows[7], rows.at(-1)]) {
      const cache = await AtriaCache.open(base);
      server.reset();
      const bytes = await cache.content(row.pointer, row.expected.name);
      assert.equal(bytes.length, row.expected.size);
      assert.deepEqual(gets(), [`/${expected.config}/${row.expected.shard}`], row.pointer);
    }
  });

  it("lists a shard's members as WebDataset samples", async () => {
    const cache = await AtriaCache.open(base);
    for (const [name, split] of Object.entries(expected.tar)) {
      for (const [shard, members] of Object.entries(split.shards)) {
        const samples = await cache.samples(shard);
        assert.deepEqual(samples.flatMap((s) => s.members), members, `${name} ${shard}`);
        for (const sample of samples) {
          for (const m of sample.members) assert.equal(m.name.slice(0, m.name.indexOf(".", sample.key.length)), sample.key);
        }
        assert.equal(new Set(samples.map((s) => s.key)).size, samples.length);
      }
    }
  });
});

describe("a Delta Lake cache over HTTP", () => {
  const deltaBase = () => `${server.url}/${expected.delta_config}/`;
  const splits = Object.keys(expected.delta);

  it("opens: backend, splits, and a split without a checkpoint by its JSON commits", async () => {
    const cache = await AtriaCache.open(deltaBase());
    assert.equal(cache.backend, "deltalake");
    assert.deepEqual(cache.splits, splits);
    const name = splits.find((s) => expected.delta[s].checkpoint === null);
    const split = await cache.split(name);
    assert.equal(split.numRows, deltaRows(expected, name).length);
    assert.deepEqual(
      split.columns.map((c) => c.name),
      expected.delta[name].columns.map(([n]) => n),
    );
    const types = Object.fromEntries(split.columns.map((c) => [c.name, c.type]));
    assert.deepEqual([types.__key__, types.index, types.bbox, types.image__content], ["string", "long", "array<double>", "binary"]);
  });

  for (const name of splits) {
    it(`split ${name}: every row, and every content field verified, recovered or found under data/`, async () => {
      const split = await (await AtriaCache.open(deltaBase())).split(name);
      const rows = [];
      for await (const row of split.rows()) rows.push(canonical(row));
      const want = deltaRows(expected, name);
      assert.deepEqual([...rows].sort((a, b) => (a.__key__ < b.__key__ ? -1 : 1)), want);
      const wanted = deltaFields(expected, name, rows);
      const counts = assertFields(await resolveFields(split, wanted), wanted);
      assert.deepEqual(inOrderOf(counts, COUNTS.fields[name]), COUNTS.fields[name]);
    });
  }

  it("column-mapped splits (modes name and id, columns renamed and added): rows by logical names", async () => {
    const cache = await AtriaCache.open(`${server.url}/mapped/`);
    assert.deepEqual(cache.splits, Object.keys(expected.column_mapping));
    for (const name of Object.keys(expected.column_mapping)) {
      const split = await cache.split(name);
      const rows = [];
      for await (const row of split.rows()) rows.push(canonical(row));
      assertMappedSplit({ columns: split.columns.map((c) => c.name), rows }, expected, name);
    }
  });

  it("partition values typed as the table's schema says (dates as days, timestamps as microseconds, decimals unscaled, empty as null), as delta-rs reads them", async () => {
    const cache = await AtriaCache.open(`${server.url}/partitioned/`);
    const split = await cache.split("train");
    const rows = [];
    for await (const row of split.rows()) rows.push(canonical(row));
    rows.sort((x, y) => x.n - y.n);
    assert.deepEqual(rows, expected.partitioned.rows);
  });

  it("a table with a checkpoint opens without reading any data file", async () => {
    const name = splits.find((s) => expected.delta[s].checkpoint !== null);
    const cache = await AtriaCache.open(deltaBase());
    server.reset();
    const split = await cache.split(name);
    assert.equal(split.numRows, deltaRows(expected, name).length);
    const read = gets();
    assert.ok(read.some((p) => p.endsWith(`.checkpoint.parquet`)), `the checkpoint was read: ${read}`);
    assert.deepEqual(read.filter((p) => !p.includes("/_delta_log/")), [], "no data file");
  });

  it("a right pointer is one request once its row is read", async () => {
    const name = splits[0];
    const split = await (await AtriaCache.open(deltaBase())).split(name);
    const truth = expected.delta[name].content;
    let tried = 0;
    for (let i = 0; i < split.numRows && tried < 3; i++) {
      const row = await split.row(i);
      const t = truth[row.__key__]?.image;
      if (!t || t.defect !== null || row.image__file_path === null) continue;
      server.reset();
      const bytes = await split.content(i, "image");
      assert.equal(bytes.length, t.expected.size);
      assert.deepEqual(gets(), [`/${expected.delta_config}/${t.expected.shard}`], t.pointer);
      tried++;
    }
    assert.equal(tried, 3);
  });
});
