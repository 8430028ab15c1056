// `persist` in headless Chromium: two page loads against the logging server,
// the second answered from the Cache API after one revalidating request; a
// collection replaced on the server; the cap; IndexedDB where the Cache API
// is missing.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FIXTURES, expected, sameValues } from "./expect.mjs";
import { openPage } from "./page.mjs";

// Hides the Cache API from the page, as an insecure origin does.
const NO_CACHE_API = `Object.defineProperty(window, "caches", { value: undefined, configurable: true });`;

let pages = [];
after(() => Promise.all(pages.map((p) => p.close())));

async function fresh(extra) {
  const opened = await openPage(extra);
  pages.push(opened);
  return opened;
}

/** Puts `fixture`'s data.atlas in `root/dir` as a new file (new inode, so a new ETag). */
function place(root, dir, fixture) {
  mkdirSync(join(root, dir), { recursive: true });
  copyFileSync(join(FIXTURES, fixture, "data.atlas"), join(root, dir, "data.atlas.next"));
  renameSync(join(root, dir, "data.atlas.next"), join(root, dir, "data.atlas"));
}

/** Opens `url` in the page, reads every array, waits for the kept writes; JSON-safe values and the time taken. */
function readAll(page, url, persist = true) {
  return page.evaluate(
    async ({ url, persist }) => {
      const { Atlas } = window.atlasWasm;
      const plain = (v) => (typeof v === "bigint" ? `${v}n` : Number.isNaN(v) ? "NaN" : v instanceof Uint8Array ? [...v] : v);
      const began = performance.now();
      const atlas = await Atlas.open(url, { tailProbeBytes: 4096, persist });
      const values = {};
      for (const name of atlas.listDatasets()) {
        const ds = atlas.dataset(name);
        for (const array of ds.listArrays()) {
          const r = await ds.read(array);
          values[`${name}/${array}`] = { dtype: r.dtype, data: Array.from(r.data, plain) };
        }
      }
      const ms = performance.now() - began;
      await atlas.flush();
      atlas.close();
      return { values, ms };
    },
    { url, persist },
  );
}

function check(values, name) {
  const want = expected(name);
  assert.deepEqual(Object.keys(values).sort(), want.datasets.flatMap((d) => d.arrays.map((a) => `${d.name}/${a.name}`)).sort());
  for (const d of want.datasets) {
    for (const a of d.arrays) {
      const r = values[`${d.name}/${a.name}`];
      const data = r.data.map((v) => (typeof v === "string" && v.endsWith("n") && r.dtype !== "string" ? BigInt(v.slice(0, -1)) : v === "NaN" ? NaN : Array.isArray(v) ? new Uint8Array(v) : v));
      sameValues({ dtype: r.dtype, data }, a.values, a.dtype, `${d.name}/${a.name}`);
    }
  }
}

async function reload(page) {
  await page.reload();
  await page.waitForFunction(() => document.title === "ready");
}

/** The collection's requests in the log (not the page's own files). */
const requests = (site, dir) => site.log.filter((e) => e.url.includes(`/${dir}/`));

/** Bytes kept in the page's Cache API cache, the index left out. */
const cacheBytes = (page) =>
  page.evaluate(async () => {
    const cache = await caches.open("atlas-wasm");
    let bytes = 0;
    let entries = 0;
    for (const request of await cache.keys()) {
      if (request.url.endsWith("/index")) continue;
      bytes += (await (await cache.match(request)).arrayBuffer()).byteLength;
      entries++;
    }
    return { bytes, entries };
  });

async function twoLoads(extra) {
  const { site, root, page } = await fresh(extra);
  place(root, "coll", "small_blocks");
  const url = `${site.url}/coll`;
  site.reset();
  const first = await readAll(page, url);
  check(first.values, "small_blocks");
  const firstLoad = requests(site, "coll");
  assert.ok(firstLoad.filter((e) => e.url.endsWith("/data.atlas")).length > 2, JSON.stringify(firstLoad));

  site.reset();
  await reload(page);
  const second = await readAll(page, url);
  const data = requests(site, "coll").filter((e) => e.url.endsWith("/data.atlas"));
  assert.equal(data.length, 1, `second load: ${JSON.stringify(data)}`);
  assert.equal(data[0].status, 304);
  assert.ok(data[0].ifNoneMatch);
  assert.deepEqual(second.values, first.values);
  return { site, root, page, url, first, second };
}

describe("persist in headless Chromium", () => {
  it("the Cache API: a reload costs one revalidating request and no block request; a replaced file is read anew", async () => {
    const { site, root, page, url, first } = await twoLoads("");
    const kept = await cacheBytes(page);
    assert.ok(kept.entries > 2 && kept.bytes > 0, JSON.stringify(kept));
    assert.equal(await page.evaluate(async () => (await indexedDB.databases()).some((d) => d.name === "atlas-wasm")), false, "IndexedDB unused");

    // The same reload without persist: everything is fetched again (the log sees the blocks).
    site.reset();
    await reload(page);
    await readAll(page, url, false);
    assert.ok(requests(site, "coll").filter((e) => e.url.endsWith("/data.atlas")).length > 2);

    // Replaced on the server: new ETag, never the old entries.
    place(root, "coll", "every_dtype_zstd");
    site.reset();
    await reload(page);
    const third = await readAll(page, url);
    check(third.values, "every_dtype_zstd");
    const data = requests(site, "coll").filter((e) => e.url.endsWith("/data.atlas"));
    assert.equal(data[0].status, 206, "the revalidation answered the new version");
    assert.ok(data[0].ifNoneMatch);
    assert.notDeepEqual(Object.keys(third.values), Object.keys(first.values));
    const after = await cacheBytes(page);
    const fetched = data.reduce((n, e) => n + e.bytes, 0);
    assert.equal(after.bytes, fetched, "only the new version's ranges are kept");
  });

  it("IndexedDB where the Cache API is missing", async () => {
    const { page } = await twoLoads(NO_CACHE_API);
    const stored = await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const opening = indexedDB.open("atlas-wasm", 1);
          opening.onerror = () => reject(opening.error);
          opening.onsuccess = () => {
            const keys = opening.result.transaction("entries").objectStore("entries").getAllKeys();
            keys.onsuccess = () => resolve(keys.result.length);
          };
        }),
    );
    assert.ok(stored > 2, `${stored} IndexedDB entries`);
  });

  it("the cap evicts the least recently used; what is gone is fetched again", async () => {
    const { site, root, page } = await fresh("");
    place(root, "small", "small_blocks");
    const url = `${site.url}/small`;
    const cap = 12_000;
    await readAll(page, url, { bytes: cap });
    const kept = await cacheBytes(page);
    assert.ok(kept.bytes > 0 && kept.bytes <= cap, JSON.stringify(kept));
    site.reset();
    await reload(page);
    const again = await readAll(page, url, { bytes: cap });
    check(again.values, "small_blocks");
    assert.ok(requests(site, "small").filter((e) => e.url.endsWith("/data.atlas")).length > 1);
  });

  it("measured: a slow link (300 ms a request), first load against the reload", async (t) => {
    const { site, root, page } = await fresh("");
    place(root, "slow", "small_blocks");
    const url = `${site.url}/~slow/slow`;
    site.reset();
    const first = await readAll(page, url);
    const firstRequests = requests(site, "slow").length;
    site.reset();
    await reload(page);
    const second = await readAll(page, url);
    const secondRequests = requests(site, "slow").length;
    // The revalidation of data.atlas and the mask's 404 (a mask may appear at any time), side by side.
    assert.deepEqual(requests(site, "slow").map((e) => [e.url.split("/").pop(), e.status]).sort(), [["data.atlas", 304], ["deleted.mask", 404]]);
    t.diagnostic(`first load ${first.ms.toFixed(0)} ms, ${firstRequests} requests; reload ${second.ms.toFixed(0)} ms, ${secondRequests} requests (${(first.ms / second.ms).toFixed(1)}x faster)`);
  });
});
