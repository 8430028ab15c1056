// The packed package in headless Chromium, from a plain ESM page with an
// import map: same-origin and cross-origin (CORS, preflights) collections.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FIXTURES, expected, sameValues } from "./expect.mjs";
import { openPage } from "./page.mjs";
import { startServer } from "./server.mjs";

let site, data, browser, page, closePage;
before(async () => {
  ({ site, browser, page, close: closePage } = await openPage());
  data = await startServer({ root: FIXTURES }); // another port: another origin
});
after(async () => {
  await closePage?.();
  await data?.close();
});

/** Every array of every dataset, read in the page, as JSON-safe values. */
function readAll(source) {
  return page.evaluate(async (source) => {
    const { Atlas } = window.atlasWasm;
    const plain = (v) => (typeof v === "bigint" ? `${v}n` : Number.isNaN(v) ? "NaN" : v instanceof Uint8Array ? [...v] : v);
    const open = source.url
      ? Atlas.open(source.url)
      : Atlas.open({ data: Atlas.fromBlob(new File([await (await fetch(source.blob)).arrayBuffer()], "data.atlas")) });
    const atlas = await open;
    const out = {};
    for (const name of atlas.listDatasets()) {
      const ds = atlas.dataset(name);
      for (const array of ds.listArrays()) {
        const r = await ds.read(array);
        out[`${name}/${array}`] = { dtype: r.dtype, data: Array.from(r.data, plain), kind: r.data.constructor.name };
      }
    }
    atlas.close();
    return out;
  }, source);
}

function check(got, name) {
  for (const d of expected(name).datasets) {
    for (const a of d.arrays) {
      const r = got[`${d.name}/${a.name}`];
      const data = r.data.map((v) => (typeof v === "string" && v.endsWith("n") && r.dtype !== "string" ? BigInt(v.slice(0, -1)) : v === "NaN" ? NaN : Array.isArray(v) ? new Uint8Array(v) : v));
      sameValues({ dtype: r.dtype, data }, a.values, a.dtype, `${d.name}/${a.name}`);
    }
  }
}

describe("in headless Chromium", () => {
  it("reads a same-origin collection over HTTP", async () => {
    const got = await readAll({ url: `${site.url}/fixtures/every_dtype_zstd` });
    check(got, "every_dtype_zstd");
    assert.equal(got["chunked/float32"].kind, "Float32Array");
    assert.equal(got["chunked/int64"].kind, "BigInt64Array");
  });

  it("reads a cross-origin collection through CORS, one data request to open", async () => {
    data.reset();
    const got = await readAll({ url: `${data.url}/python_netcdf` });
    check(got, "python_netcdf");
    const gets = data.log.filter((e) => e.method === "GET" && e.url.endsWith("/data.atlas"));
    assert.equal(gets[0].range, "bytes=-65536");
    assert.ok(data.log.some((e) => e.method === "OPTIONS"), "the suffix range is preflighted");
  });

  it("reads a File", async () => {
    check(await readAll({ blob: `${site.url}/fixtures/every_dtype_lz4/data.atlas` }), "every_dtype_lz4");
  });

  it("loads and opens in a fresh page (timing reported as a diagnostic)", async (t) => {
    const fresh = await browser.newPage();
    await fresh.goto(`${site.url}/index.html`);
    await fresh.waitForFunction(() => document.title === "ready");
    const ms = await fresh.evaluate(async (url) => {
      const start = performance.now();
      const atlas = await window.atlasWasm.Atlas.open(url); // the first open fetches, compiles and instantiates the module
      const opened = performance.now() - start;
      atlas.close();
      return opened;
    }, `${site.url}/fixtures/every_dtype_zstd`);
    await fresh.close();
    t.diagnostic(`Chromium: fetch + compile + init + first open over HTTP: ${ms.toFixed(1)} ms`);
    assert.ok(ms < 5000);
  });

  it("throws AtlasError with a code", async () => {
    const code = await page.evaluate(async (url) => {
      const { Atlas, AtlasError } = window.atlasWasm;
      const atlas = await Atlas.open(url);
      try {
        atlas.dataset("nope");
      } catch (e) {
        return e instanceof AtlasError ? e.code : `not an AtlasError: ${e}`;
      }
    }, `${site.url}/fixtures/every_dtype_zstd`);
    assert.equal(code, "DatasetNotFound");
  });
});
