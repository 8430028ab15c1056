// atlas-wasm/atria in workerd (miniflare) over an R2 binding: a Worker opens
// the corpus's config directory from a local bucket with AtriaCache.fromR2
// (listing, not probing), reads every record, row and pointer, and reports
// its R2 calls; the values are held against expected.json here. The package
// is loaded as a bundler resolves it for Workers: the "workerd" condition of
// "./atria", with the .wasm as a compiled module.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Miniflare } from "miniflare";
import {
  CORPUS,
  assertFields,
  assertPointers,
  assertUnrecoverable,
  COUNTS,
  inOrderOf,
  configDir,
  deltaFields,
  deltaRows,
  expectedAtria,
  msgpackRecords,
  pointerRows,
  unrecoverable,
} from "./atria-expect.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));
const expected = expectedAtria();
// The Worker: `/read?split=S` answers every row of S in canonical form and
// the R2 calls it took; `/one?split=S&i=N` opens S, then reads row N alone
// and says how many gets that read took.
const WORKER = `
import { AtriaCache, AtriaError } from "./atria-entry.js";
import { canonical, hex, resolveFields, resolvePointers } from "./atria-canonical.mjs";

function counted(bucket, calls) {
  return {
    get: (...args) => (calls.get++, calls.keys.push(args[0]), bucket.get(...args)),
    list: (...args) => (calls.list++, bucket.list(...args)),
  };
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const calls = { get: 0, list: 0, keys: [] };
    try {
      const prefix = url.searchParams.get("prefix") ?? "cache";
      const cache = await AtriaCache.open(AtriaCache.fromR2(counted(env.CACHE, calls), prefix));
      const opened = { ...calls, keys: [...calls.keys] };
      if (url.pathname === "/pointers") {
        const before = calls.get;
        const results = await resolvePointers(cache, await request.json());
        return Response.json({ results, gets: calls.get - before });
      }
      const before = { ...calls, keys: [...calls.keys] };
      const split = await cache.split(url.searchParams.get("split"));
      if (url.pathname === "/open") {
        return Response.json({ backend: cache.backend, splits: cache.splits, numRows: split.numRows, columns: split.columns, keys: calls.keys.slice(before.keys.length) });
      }
      if (url.pathname === "/fields") {
        return Response.json({ results: await resolveFields(split, await request.json()) });
      }
      if (url.pathname === "/read") {
        const rows = [];
        for await (const row of split.rows()) rows.push(canonical(row));
        return Response.json({ backend: cache.backend, splits: cache.splits, numRows: split.numRows, columns: split.columns, rows, opened, calls });
      }
      if (url.pathname === "/one") {
        const i = Number(url.searchParams.get("i"));
        const start = calls.get;
        const row = canonical(await split.row(i));
        const gets = calls.get - start;
        const image = hex(await split.content(i, "image"));
        return Response.json({ row, gets, image });
      }
      if (url.pathname === "/errors") {
        const code = (p) => p.then(() => "resolved", (e) => (e instanceof AtriaError ? e.code : "not an AtriaError: " + e));
        return Response.json({
          missingSplit: await code(cache.split("nope")),
          pastTheEnd: await code(split.row(split.numRows)),
          noCache: await code(AtriaCache.open(AtriaCache.fromR2(env.CACHE, "elsewhere"))),
        });
      }
      return new Response("not found", { status: 404 });
    } catch (error) {
      return Response.json({ failed: String(error), code: error.code }, { status: 500 });
    }
  },
};
`;

/** The Worker, the installed package's dist/ and the canonical form as workerd modules. */
function modules() {
  const root = "/bundle";
  const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
  const out = [
    { type: "ESModule", path: `${root}/worker.js`, contents: WORKER },
    { type: "ESModule", path: `${root}/atria-entry.js`, contents: readFileSync(join(PACKAGE, pkg.exports["./atria"].workerd), "utf8") },
    { type: "ESModule", path: `${root}/atria-canonical.mjs`, contents: readFileSync(join(here, "atria-canonical.mjs"), "utf8") },
  ];
  for (const file of readdirSync(join(PACKAGE, "dist"))) {
    const path = join(PACKAGE, "dist", file);
    if (file.endsWith(".js")) out.push({ type: "ESModule", path: `${root}/${file}`, contents: readFileSync(path, "utf8") });
    if (file.endsWith(".wasm")) out.push({ type: "CompiledWasm", path: `${root}/${file}`, contents: readFileSync(path) });
  }
  return { modules: out, modulesRoot: root };
}

/** Every file under `dir`, as paths relative to it. */
function files(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)));
}

let mf;
before(async () => {
  mf = new Miniflare({ ...modules(), compatibilityDate: "2026-04-01", cf: false, r2Buckets: ["CACHE"] });
  const bucket = await mf.getR2Bucket("CACHE");
  // The msgpack config under cache/, the Delta Lake one under delta/.
  for (const [prefix, root] of [["cache", configDir(expected)], ["delta", join(CORPUS, expected.delta_config)]]) {
    for (const file of files(root)) await bucket.put(`${prefix}/${file}`, new Uint8Array(readFileSync(join(root, file))));
  }
});
after(() => mf?.dispose());

async function call(path, posted) {
  const init = posted === undefined ? undefined : { method: "POST", body: JSON.stringify(posted) };
  const response = await mf.dispatchFetch(`http://worker${path}`, init);
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  return body;
}

describe("atlas-wasm/atria in workerd over R2", () => {
  for (const name of Object.keys(expected.msgpack)) {
    it(`reads every record of msgpack split ${name}`, async () => {
      const got = await call(`/read?split=${name}`);
      const want = msgpackRecords(expected, name);
      assert.equal(got.backend, "msgpack");
      assert.deepEqual(got.splits, Object.keys(expected.msgpack));
      assert.equal(got.opened.get, 0, "opening lists the bucket and reads nothing");
      assert.equal(got.numRows, want.length);
      assert.deepEqual(got.columns.map((c) => c.name), Object.keys(want[0]));
      got.rows.forEach((row, i) => assert.deepEqual(row, want[i], `${name} record ${i}`));
    });
  }

  it("reads a record with one get once the split is open", async () => {
    const want = msgpackRecords(expected, "test");
    const got = await call("/one?split=test&i=5");
    assert.deepEqual(got.row, want[5]);
    assert.equal(got.gets, 1);
    assert.equal(got.image, want[5].image.$bin);
  });

  it("answers typed errors", async () => {
    assert.deepEqual(await call("/errors?split=train"), { missingSplit: "NotFound", pastTheEnd: "OutOfBounds", noCache: "NotFound" });
  });

  it("resolves every TAR pointer: verified, recovered byte for byte, or BadPointer", async () => {
    for (const name of Object.keys(expected.tar)) {
      const rows = pointerRows(expected, name);
      const bad = unrecoverable(rows);
      const { results } = await call("/pointers?split=train", [...rows, bad]);
      assertUnrecoverable(results.pop(), bad);
      assert.deepEqual(inOrderOf(assertPointers(results, rows), COUNTS.pointers[name]), COUNTS.pointers[name]);
    }
  });

  it("verifies a right pointer with one get", async () => {
    const row = pointerRows(expected, "test").find((r) => r.defect === null);
    const { results, gets } = await call("/pointers?split=test", [row]);
    assertPointers(results, [row]);
    assert.equal(gets, 2, "check and content: one get each");
  });

  it("opens the Delta Lake cache by listing R2", async () => {
    const got = await call("/open?prefix=delta&split=test");
    assert.equal(got.backend, "deltalake");
    assert.deepEqual(got.splits, Object.keys(expected.delta));
    assert.equal(got.numRows, deltaRows(expected, "test").length);
    assert.deepEqual(got.columns.map((c) => c.name), expected.delta.test.columns.map(([n]) => n));
    assert.deepEqual(got.keys.filter((k) => !k.includes("/_delta_log/")), [], "no data file read to open");
  });

  it("opens a table with a checkpoint without reading any data file", async () => {
    const name = Object.keys(expected.delta).find((s) => expected.delta[s].checkpoint !== null);
    const got = await call(`/open?prefix=delta&split=${name}`);
    assert.equal(got.numRows, deltaRows(expected, name).length);
    assert.ok(got.keys.some((k) => k.endsWith(".checkpoint.parquet")), `${got.keys}`);
    assert.deepEqual(got.keys.filter((k) => !k.includes("/_delta_log/")), []);
  });

  it("reads every Delta row and every content field", async () => {
    for (const name of Object.keys(expected.delta)) {
      const { rows } = await call(`/read?prefix=delta&split=${name}`);
      assert.deepEqual([...rows].sort((a, b) => (a.__key__ < b.__key__ ? -1 : 1)), deltaRows(expected, name));
      const wanted = deltaFields(expected, name, rows);
      const { results } = await call(`/fields?prefix=delta&split=${name}`, wanted);
      assert.deepEqual(inOrderOf(assertFields(results, wanted), COUNTS.fields[name]), COUNTS.fields[name]);
    }
  });
});
