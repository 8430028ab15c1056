// atlas-wasm/atria in headless Chromium (test/page.mjs): the page imports
// the installed package's browser entry and reads the corpus from another
// origin (test/server.mjs, CORS), and every value it read is held against
// expected.json here.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  CORPUS,
  assertFields,
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
import { openAtriaPage } from "./page.mjs";
import { startServer } from "./server.mjs";

const expected = expectedAtria();
let page;
let corpus;
let base;

before(async () => {
  corpus = await startServer({ root: CORPUS });
  base = `${corpus.url}/${expected.config}/`;
  page = await openAtriaPage();
});
after(async () => {
  await page?.close();
  await corpus?.close();
});

const gets = () => corpus.log.filter((e) => e.method === "GET").map((e) => decodeURIComponent(new URL(e.url, "http://x").pathname));

describe("atlas-wasm/atria in headless Chromium", () => {
  it("opens the msgpack cache and reads every record of every split", async () => {
    const got = await page.page.evaluate(async (base) => {
      const { AtriaCache } = window.atria;
      const cache = await AtriaCache.open(base);
      const splits = {};
      for (const name of cache.splits) {
        const split = await cache.split(name);
        const rows = [];
        for await (const row of split.rows()) rows.push(window.canon.canonical(row));
        splits[name] = { numRows: split.numRows, columns: split.columns, rows };
      }
      return { backend: cache.backend, splits };
    }, base);
    assert.equal(got.backend, "msgpack");
    assert.deepEqual(Object.keys(got.splits), Object.keys(expected.msgpack));
    for (const [name, split] of Object.entries(got.splits)) {
      const want = msgpackRecords(expected, name);
      assert.equal(split.numRows, want.length);
      assert.deepEqual(split.columns.map((c) => c.name), Object.keys(want[0]));
      split.rows.forEach((row, i) => assert.deepEqual(row, want[i], `${name} record ${i}`));
    }
  });

  it("reads a record with one request, and answers typed errors", async () => {
    await page.page.evaluate(async (base) => {
      window.split = await (await window.atria.AtriaCache.open(base)).split("test");
    }, base);
    corpus.reset();
    const image = await page.page.evaluate(async () => window.canon.hex(await window.split.content(4, "image")));
    assert.equal(gets().length, 1, `${gets()}`);
    assert.equal(image, msgpackRecords(expected, "test")[4].image.$bin);
    const errors = await page.page.evaluate(async (base) => {
      const { AtriaCache, AtriaError } = window.atria;
      const code = (p) => p.then(() => "resolved", (e) => (e instanceof AtriaError ? e.code : `not an AtriaError: ${e}`));
      return {
        missingSplit: await code(AtriaCache.open(base).then((c) => c.split("nope"))),
        pastTheEnd: await code(window.split.row(window.split.numRows)),
        noCache: await code(AtriaCache.open(new URL("/nothing/", base).href)),
        aborted: await code(window.split.row(0, { signal: AbortSignal.abort() })),
      };
    }, base);
    assert.deepEqual(errors, { missingSplit: "NotFound", pastTheEnd: "OutOfBounds", noCache: "NotFound", aborted: "Aborted" });
  });

  it("resolves every TAR pointer: verified, recovered byte for byte, or BadPointer", async () => {
    for (const name of Object.keys(expected.tar)) {
      const rows = pointerRows(expected, name);
      const bad = unrecoverable(rows);
      const results = await page.page.evaluate(async ({ base, rows }) => {
        const cache = await window.atria.AtriaCache.open(base);
        return window.canon.resolvePointers(cache, rows);
      }, { base, rows: [...rows, bad] });
      assertUnrecoverable(results.pop(), bad);
      assert.deepEqual(inOrderOf(assertPointers(results, rows), COUNTS.pointers[name]), COUNTS.pointers[name]);
    }
  });

  it("opens the Delta Lake cache", async () => {
    const got = await page.page.evaluate(async (url) => {
      const cache = await window.atria.AtriaCache.open(url);
      const split = await cache.split("test");
      return { backend: cache.backend, splits: cache.splits, numRows: split.numRows, columns: split.columns.map((c) => c.name) };
    }, `${corpus.url}/${expected.delta_config}/`);
    assert.deepEqual(got, {
      backend: "deltalake",
      splits: Object.keys(expected.delta),
      numRows: deltaRows(expected, "test").length,
      columns: expected.delta.test.columns.map(([n]) => n),
    });
  });

  it("reads every Delta row and every content field", async () => {
    const url = `${corpus.url}/${expected.delta_config}/`;
    for (const name of Object.keys(expected.delta)) {
      const rows = await page.page.evaluate(async ({ url, name }) => {
        window.deltaSplit = await (await window.atria.AtriaCache.open(url)).split(name);
        const rows = [];
        for await (const row of window.deltaSplit.rows()) rows.push(window.canon.canonical(row));
        return rows;
      }, { url, name });
      assert.deepEqual([...rows].sort((a, b) => (a.__key__ < b.__key__ ? -1 : 1)), deltaRows(expected, name));
      const wanted = deltaFields(expected, name, rows);
      const results = await page.page.evaluate((wanted) => window.canon.resolveFields(window.deltaSplit, wanted), wanted);
      assert.deepEqual(inOrderOf(assertFields(results, wanted), COUNTS.fields[name]), COUNTS.fields[name]);
    }
  });
});
