// atlas-wasm/atria in headless Chromium (test/page.mjs) on the caches
// Atria's own writer code wrote (tests/atria/atria-caches/), served from
// another origin: the page reads every row, check and content, and they are
// held against expected.json here (atria-writers-expect.mjs).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CACHES, CONVENTIONS, assertDeltaCache, assertMsgpackCache, expectedWriters } from "./atria-writers-expect.mjs";
import { openAtriaPage } from "./page.mjs";
import { startServer } from "./server.mjs";

const expected = expectedWriters();
let page;
let server;

before(async () => {
  server = await startServer({ root: CACHES });
  page = await openAtriaPage();
});
after(async () => {
  await page?.close();
  await server?.close();
});

const readDelta = (url) =>
  page.page.evaluate(async (url) => {
    const { canonical, hex } = window.canon;
    const cache = await window.atria.AtriaCache.open(url);
    const got = {};
    for (const name of ["train", "test"]) {
      const split = await cache.split(name);
      got[name] = [];
      for (let i = 0; i < split.numRows; i++) {
        const row = canonical(await split.row(i));
        const check = await split.check(i, "image");
        got[name].push({ row, check, content: hex(await split.content(i, "image")) });
      }
    }
    return { backend: cache.backend, got };
  }, url);

describe("atlas-wasm/atria in headless Chromium on caches written by Atria's own code", () => {
  it("verifies or recovers every pointer Atria wrote for path sample ids, and says which key convention named it", async () => {
    for (const name of CONVENTIONS) {
      const { backend, got } = await readDelta(`${server.url}/${name}_delta/`);
      assert.equal(backend, "deltalake");
      assert.deepEqual(assertDeltaCache(name, got, expected.caches[name].delta), [7, 4], name);
    }
  });

  it("catches every edited pointer of a copy and recovers its member by name", async () => {
    for (const name of CONVENTIONS) {
      const want = expected.caches[name].delta_edited;
      const edits = Object.keys(want.train.edits).length + Object.keys(want.test.edits).length;
      const { got } = await readDelta(`${server.url}/${name}_delta_edited/`);
      const [right, recovered] = assertDeltaCache(name, got, want);
      assert.deepEqual([right + recovered, recovered], [11, 4 + edits], name);
    }
  });

  it("reads every msgpack record Atria wrote as datadings reads it", async () => {
    for (const name of CONVENTIONS) {
      const got = await page.page.evaluate(async (url) => {
        const cache = await window.atria.AtriaCache.open(url);
        const got = { backend: cache.backend };
        for (const split of ["train", "test"]) {
          got[split] = [];
          for await (const row of (await cache.split(split)).rows()) got[split].push(window.canon.canonical(row));
        }
        return got;
      }, `${server.url}/${name}_msgpack/`);
      assert.equal(got.backend, "msgpack");
      assertMsgpackCache(name, got, expected.caches[name].msgpack);
    }
  });
});
