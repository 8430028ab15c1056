// `persist` in Node, where neither the Cache API nor IndexedDB exists: the
// kept ranges live in the process's memory, shared by every handle, so a
// re-open is the "reload". The request log of a local Range server says what
// each open and read cost.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, beforeEach, describe, it } from "node:test";
import { Atlas, AtlasError } from "atlas-wasm";
import { FIXTURES, checkCollection, expected } from "./expect.mjs";
import { startServer } from "./server.mjs";

// The package's own persist.js, the module its Atlas uses: to start each test
// with an empty cache and to look at what it holds.
const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));
const { forgetKeptBytes, keptBytes } = await import(pathToFileURL(join(PACKAGE, "dist/persist.js")).href);

const root = mkdtempSync(join(tmpdir(), "atlas-persist-"));
let server;
before(async () => {
  server = await startServer({ root });
});
after(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => forgetKeptBytes());

/** A collection directory holding `fixture`'s files, served at the returned URL. */
function collection(dir, fixture) {
  replace(dir, fixture);
  return `${server.url}/${dir}`;
}

/** Puts `fixture`'s data.atlas in `dir` as a new file (new inode, so a new ETag). */
function replace(dir, fixture) {
  const path = join(root, dir);
  mkdirSync(path, { recursive: true });
  copyFileSync(join(FIXTURES, fixture, "data.atlas"), join(path, "data.atlas.next"));
  renameSync(join(path, "data.atlas.next"), join(path, "data.atlas"));
}

const SMALL_PROBE = { tailProbeBytes: 4096 };
const data = () => server.log.filter((e) => e.url.endsWith("/data.atlas"));
const others = () => server.log.filter((e) => !e.url.endsWith("/data.atlas") && !e.url.endsWith("/deleted.mask"));

async function readAll(atlas) {
  const out = {};
  for (const name of atlas.listDatasets()) {
    const ds = atlas.dataset(name);
    for (const array of ds.listArrays()) out[`${name}/${array}`] = await ds.read(array);
  }
  return out;
}

describe("persist in Node (the process's memory)", () => {
  it("a re-open costs one revalidating request and no block request", async () => {
    const url = collection("reopen", "small_blocks");
    server.reset();
    const first = await Atlas.open(url, { ...SMALL_PROBE, persist: true });
    const before = await readAll(first);
    await first.flush();
    first.close();
    const firstLoad = data();
    assert.ok(firstLoad.length > 2, `${firstLoad.length} requests on the first load`);

    server.reset();
    const second = await Atlas.open(url, { ...SMALL_PROBE, persist: true });
    const again = await readAll(second);
    const secondLoad = data();
    assert.equal(secondLoad.length, 1, JSON.stringify(secondLoad));
    assert.equal(secondLoad[0].status, 304);
    assert.ok(secondLoad[0].ifNoneMatch, "the tail read carried If-None-Match");
    assert.equal(others().length, 0);
    assert.deepEqual(Object.keys(again), Object.keys(before));
    for (const key of Object.keys(before)) assert.deepEqual(again[key].data, before[key].data, key);
    await checkCollection(second, expected("small_blocks"));
    second.close();

    // Without persist the same re-open fetches everything again: the log sees it.
    server.reset();
    const plain = await Atlas.open(url, SMALL_PROBE);
    await readAll(plain);
    assert.equal(data().length, firstLoad.length);
    plain.close();
  });

  it("a range planned otherwise is served when kept ranges cover it, fetched when they do not", async () => {
    const url = collection("planned", "small_blocks");
    const first = await Atlas.open(url, { tailProbeBytes: 4096, persist: true });
    const before = await readAll(first);
    await first.flush();
    first.close();

    // A smaller tail lies inside the kept one: still one conditional request.
    server.reset();
    const inside = await Atlas.open(url, { tailProbeBytes: 2048, persist: true });
    const again = await readAll(inside);
    assert.deepEqual(data().map((e) => e.status), [304]);
    for (const key of Object.keys(before)) assert.deepEqual(again[key].data, before[key].data, key);
    await checkCollection(inside, expected("small_blocks"));
    inside.close();

    // A larger one that kept ranges side by side cover (the tail and the segment before it).
    server.reset();
    const larger = await Atlas.open(url, { tailProbeBytes: 8192, persist: true });
    await checkCollection(larger, expected("small_blocks"));
    assert.deepEqual(data().map((e) => e.status), [304]);
    larger.close();

    // The whole file: its first bytes were never read, so the tail is fetched whole
    // (no If-None-Match: nothing kept answers it); it is the same version, so nothing else is asked.
    server.reset();
    const whole = await Atlas.open(url, { tailProbeBytes: 65536, persist: true });
    await checkCollection(whole, expected("small_blocks"));
    const requested = data();
    assert.equal(requested.length, 1, JSON.stringify(requested));
    assert.ok(requested[0].status === 206 && !requested[0].ifNoneMatch, JSON.stringify(requested));
    whole.close();
  });

  it("a collection replaced on the server is read anew; the old version's entries go", async () => {
    const url = collection("replaced", "small_blocks");
    const first = await Atlas.open(url, { ...SMALL_PROBE, persist: true });
    await readAll(first);
    await first.flush();
    first.close();
    const kept = await keptBytes(256 << 20);
    assert.equal(kept.kind, "memory", "Node has neither the Cache API nor IndexedDB");
    const before = kept.version(`${url}/data.atlas`);
    assert.ok(before?.etag && kept.held > 0);

    replace("replaced", "every_dtype_zstd");
    server.reset();
    const second = await Atlas.open(url, { ...SMALL_PROBE, persist: true });
    const want = expected("every_dtype_zstd");
    assert.deepEqual(second.listDatasets(), want.datasets.map((d) => d.name));
    await checkCollection(second, want);
    await second.flush();
    const tail = data()[0];
    assert.equal(tail.status, 206, "the new version answered the revalidation");
    assert.equal(tail.ifNoneMatch, before.etag);
    const now = kept.version(`${url}/data.atlas`);
    assert.notEqual(now.etag, before.etag);
    // Only the new version is held: exactly what this load fetched.
    const fetched = data().reduce((n, e) => n + e.bytes, 0);
    assert.equal(kept.held, fetched);
    second.close();
  });

  it("the cap evicts the least recently used ranges", async () => {
    const url = collection("capped", "small_blocks");
    const cap = 12_000;
    const first = await Atlas.open(url, { ...SMALL_PROBE, persist: { bytes: cap } });
    await readAll(first);
    await first.flush();
    const kept = await keptBytes(cap);
    assert.ok(kept.held > 0 && kept.held <= cap, `${kept.held} bytes held, cap ${cap}`);
    first.close();

    server.reset();
    const second = await Atlas.open(url, { ...SMALL_PROBE, persist: { bytes: cap } });
    await checkCollection(second, expected("small_blocks"));
    assert.ok(data().length > 1, "what was evicted is fetched again");
    second.close();
  });

  it("the index: least recently used out first, ranges served across entries, a new version drops the old", async () => {
    const kept = await keptBytes(300);
    kept.setVersion("k", "e1", 1000);
    const filled = (n) => new Uint8Array(100).fill(n);
    kept.keep("k", "e1", 0, filled(1));
    kept.keep("k", "e1", 100, filled(2));
    kept.keep("k", "e1", 200, filled(3));
    assert.equal(kept.held, 300);
    assert.deepEqual(await kept.lookup("k", "e1", 0, 100), filled(1)); // 0..100 is now the most recent
    kept.keep("k", "e1", 300, filled(4)); // over the cap: the least recently used goes
    assert.equal(kept.held, 300);
    assert.equal(await kept.lookup("k", "e1", 100, 200), undefined, "100..200 was the least recently used");
    assert.equal(await kept.lookup("k", "e1", 50, 150), undefined, "half of it is not kept");
    assert.deepEqual(await kept.lookup("k", "e1", 250, 350), new Uint8Array([...filled(3).subarray(50), ...filled(4).subarray(0, 50)]));
    assert.equal(await kept.lookup("k", "e2", 0, 100), undefined, "another version");
    kept.keep("k", "e1", 400, new Uint8Array(301)); // larger than the cap: not kept
    assert.equal(kept.held, 300);
    await kept.flush();

    kept.setVersion("k", "e2", 1000);
    assert.equal(kept.held, 0, "the old version's entries are gone");
    assert.equal(await kept.lookup("k", "e1", 0, 100), undefined);
    await kept.flush();
  });

  it("refuses persist for sources it cannot key, and bad caps", async () => {
    const bytes = Atlas.fromBytes(new Uint8Array(10));
    for (const [target, options] of [
      [{ data: bytes }, { persist: true }],
      [`${server.url}/x`, { persist: { bytes: 0 } }],
      [`${server.url}/x`, { persist: 5 }],
    ]) {
      await assert.rejects(Atlas.open(target, options), (e) => e instanceof AtlasError && e.code === "InvalidArgument");
    }
  });
});
