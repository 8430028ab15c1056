// atlas-wasm/atria in Node over HTTP, on the caches Atria's own writer code
// wrote (tests/atria/atria-caches/): sample ids that are file paths, under
// each key convention Atria has used; every row, verdict and byte against
// expected.json (atria-writers-expect.mjs).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AtriaCache, AtriaError } from "atlas-wasm/atria";
import { canonical, hex } from "./atria-canonical.mjs";
import { CACHES, CONVENTIONS, assertDeltaCache, assertMsgpackCache, expectedWriters } from "./atria-writers-expect.mjs";
import { startServer } from "./server.mjs";

const expected = expectedWriters();
let server;

before(async () => {
  server = await startServer({ root: CACHES });
});
after(() => server?.close());

async function readDelta(config) {
  const cache = await AtriaCache.open(`${server.url}/${config}/`);
  assert.equal(cache.backend, "deltalake");
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
  return got;
}

describe("atlas-wasm/atria in Node on caches written by Atria's own code", () => {
  it("verifies or recovers every pointer Atria wrote for path sample ids, and says which key convention named it", async () => {
    for (const name of CONVENTIONS) {
      const [right, recovered] = assertDeltaCache(name, await readDelta(`${name}_delta`), expected.caches[name].delta);
      assert.deepEqual([right, recovered], [7, 4], name);
    }
  });

  it("catches every edited pointer of a copy and recovers its member by name", async () => {
    for (const name of CONVENTIONS) {
      const want = expected.caches[name].delta_edited;
      const edits = Object.keys(want.train.edits).length + Object.keys(want.test.edits).length;
      const [right, recovered] = assertDeltaCache(name, await readDelta(`${name}_delta_edited`), want);
      assert.deepEqual([right + recovered, recovered], [11, 4 + edits], name);
    }
  });

  it("reads every msgpack record Atria wrote as datadings reads it", async () => {
    for (const name of CONVENTIONS) {
      const cache = await AtriaCache.open(`${server.url}/${name}_msgpack/`);
      assert.equal(cache.backend, "msgpack");
      const got = {};
      for (const split of ["train", "test"]) {
        got[split] = [];
        for await (const row of (await cache.split(split)).rows()) got[split].push(canonical(row));
      }
      assertMsgpackCache(name, got, expected.caches[name].msgpack);
    }
  });

  it("still rejects a pointer that reaches another sample's member when its own is nowhere", async () => {
    const cache = await AtriaCache.open(`${server.url}/dots-slashes-hash_delta/`);
    const pointers = expected.caches["dots-slashes-hash"].delta.test.pointers;
    const check = await cache.check(pointers[1].pointer, "no-such-sample.image__content");
    assert.equal(check.ok, false);
    assert.equal(check.recovered, false);
    assert.equal(check.defect.kind, "OtherMember");
    assert.equal(check.defect.name, pointers[1].expected.name);
    assert.equal(check.keyConvention, null);
    await assert.rejects(cache.content(pointers[1].pointer, "no-such-sample.image__content"), (e) => e instanceof AtriaError && e.code === "BadPointer");
  });
});
