// `persist` in workerd (miniflare, `cf: false`): the kept ranges go to
// `caches.default`. A Worker reading from R2 through a bucket that logs every
// get; the second request (a fresh handle, in a restarted workerd) costs one
// revalidating get per object and no block get.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { Miniflare } from "miniflare";
import { FIXTURES, expected, sameValues } from "./expect.mjs";

const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));

const WORKER = `
import { Atlas } from "atlas-wasm";

let served = 0; // requests this isolate has served

export default {
  async fetch(request, env) {
    served++;
    const gets = [];
    const bucket = {
      get(key, options) {
        gets.push({ key, onlyIf: options?.onlyIf ?? null, range: options?.range ?? null });
        return env.COLLECTIONS.get(key, options);
      },
    };
    // A handle per request: what a new isolate does.
    const atlas = await Atlas.open(
      { data: Atlas.fromR2(bucket, "c/data.atlas"), mask: Atlas.fromR2(bucket, "c/deleted.mask") },
      { tailProbeBytes: 4096, persist: true },
    );
    const values = {};
    for (const name of atlas.listDatasets()) {
      const ds = atlas.dataset(name);
      for (const array of ds.listArrays()) {
        const r = await ds.read(array);
        values[name + "/" + array] = { dtype: r.dtype, data: Array.from(r.data, (v) => (typeof v === "number" && Number.isNaN(v) ? "NaN" : typeof v === "bigint" ? String(v) : v instanceof Uint8Array ? [...v] : v)) };
      }
    }
    // A Worker would hand this to ctx.waitUntil; the test waits, so the next request finds every write.
    await atlas.flush();
    const index = await caches.default.match("https://atlas-wasm.invalid/v1/index");
    return Response.json({ values, gets, served, index: index ? JSON.parse(await index.text()) : null });
  },
};
`;

/** The Worker and the installed package as workerd modules under one root (as worker.test.mjs). */
function modules() {
  const root = "/bundle";
  const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
  const out = [
    { type: "ESModule", path: `${root}/worker.js`, contents: WORKER },
    { type: "ESModule", path: `${root}/atlas-wasm`, contents: readFileSync(join(PACKAGE, pkg.exports["."].workerd), "utf8") },
  ];
  for (const file of readdirSync(join(PACKAGE, "dist"))) {
    const path = join(PACKAGE, "dist", file);
    if (file.endsWith(".js")) out.push({ type: "ESModule", path: `${root}/${file}`, contents: readFileSync(path, "utf8") });
    if (file.endsWith(".wasm")) out.push({ type: "CompiledWasm", path: `${root}/${file}`, contents: readFileSync(path) });
  }
  return { modules: out, modulesRoot: root };
}

let mf;
after(() => mf?.dispose());

function asValues(r) {
  const wide = ["int64", "uint64", "timestamp_ns"].includes(r.dtype);
  return { dtype: r.dtype, data: r.data.map((v) => (wide ? BigInt(v) : v === "NaN" ? NaN : r.dtype === "binary" ? new Uint8Array(v) : v)) };
}

describe("persist in a Worker (workerd, caches.default)", () => {
  it("the second request is served from caches.default: one get per object, no block get", async () => {
    const options = { ...modules(), compatibilityDate: "2026-04-01", cf: false, r2Buckets: ["COLLECTIONS"] };
    mf = new Miniflare(options);
    await (await mf.getR2Bucket("COLLECTIONS")).put("c/data.atlas", new Uint8Array(readFileSync(join(FIXTURES, "small_blocks", "data.atlas"))));
    const call = async () => (await mf.dispatchFetch("http://worker/")).json();

    const first = await call();
    const want = expected("small_blocks");
    for (const d of want.datasets) for (const a of d.arrays) sameValues(asValues(first.values[`${d.name}/${a.name}`]), a.values, a.dtype, `${d.name}/${a.name}`);
    assert.ok(first.gets.filter((g) => g.key === "c/data.atlas").length > 2, JSON.stringify(first.gets));
    assert.ok(first.index?.entries.length > 2, "the index is in caches.default");

    // A restarted workerd: nothing of the first isolate is left but the cache.
    await mf.setOptions(options);
    const second = await call();
    assert.equal(second.served, 1, "a new isolate");
    assert.deepEqual(second.values, first.values);
    const data = second.gets.filter((g) => g.key === "c/data.atlas");
    assert.equal(data.length, 1, JSON.stringify(second.gets));
    assert.ok(data[0].onlyIf?.etagDoesNotMatch, "the tail get is conditional");
    assert.deepEqual(second.gets.filter((g) => g.key !== "c/data.atlas").map((g) => g.key), ["c/deleted.mask"]);

    // Replaced in the bucket (a new ETag): read anew, the old version's entries dropped from the index.
    const stub = await mf.getR2Bucket("COLLECTIONS"); // the restart poisoned the first stub
    await stub.put("c/data.atlas", new Uint8Array(readFileSync(join(FIXTURES, "every_dtype_zstd", "data.atlas"))));
    const third = await call();
    const next = expected("every_dtype_zstd");
    assert.deepEqual(Object.keys(third.values).sort(), next.datasets.flatMap((d) => d.arrays.map((a) => `${d.name}/${a.name}`)).sort());
    for (const d of next.datasets) {
      for (const a of d.arrays) sameValues(asValues(third.values[`${d.name}/${a.name}`]), a.values, a.dtype, `${d.name}/${a.name}`);
    }
    const etags = new Set(third.index.entries.map(([, etag]) => etag));
    assert.equal(etags.size, 1, "one version left in the index");
    assert.ok(!new Set(second.index.entries.map(([, etag]) => etag)).has([...etags][0]));
  });
});
