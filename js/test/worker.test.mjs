// The example Worker (js/examples/worker) in workerd, through miniflare, with
// a local R2 bucket holding real collections. The package is loaded the way
// a bundler resolves it for Workers: its "workerd" export, with the .wasm as
// a compiled module.
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { Miniflare } from "miniflare";
import { FIXTURES, expected, sameValues, window } from "./expect.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const WORKER = process.env.ATLAS_WORKER_EXAMPLE ?? join(here, "../../examples/worker/src/index.js");
const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));

/** The Worker and the installed package as workerd modules under one root. */
function modules() {
  const root = "/bundle";
  const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
  const out = [
    { type: "ESModule", path: `${root}/worker.js`, contents: readFileSync(WORKER, "utf8") },
    // The bare specifier "atlas-wasm" names this module.
    { type: "ESModule", path: `${root}/atlas-wasm`, contents: readFileSync(join(PACKAGE, pkg.exports["."].workerd), "utf8") },
  ];
  for (const file of readdirSync(join(PACKAGE, "dist"))) {
    const path = join(PACKAGE, "dist", file);
    if (file.endsWith(".js")) out.push({ type: "ESModule", path: `${root}/${file}`, contents: readFileSync(path, "utf8") });
    if (file.endsWith(".wasm")) out.push({ type: "CompiledWasm", path: `${root}/${file}`, contents: readFileSync(path) });
  }
  return { modules: out, modulesRoot: root };
}

const running = [];
after(() => Promise.all(running.map((mf) => mf.dispose())));

/** A Worker whose bucket holds `fixture` under `collection/`. */
async function worker(fixture) {
  const mf = new Miniflare({ ...modules(), compatibilityDate: "2026-04-01", cf: false, r2Buckets: ["COLLECTIONS"], bindings: { COLLECTION: "collection" } });
  running.push(mf);
  const bucket = await mf.getR2Bucket("COLLECTIONS");
  for (const file of ["data.atlas", "deleted.mask"]) {
    const path = join(FIXTURES, fixture, file);
    if (!existsSync(path)) continue;
    // Miniflare hands a put's body to workerd as one string, which stops at
    // 512 MB; a million datasets (ATLAS_SCALE_DATASETS) are 600 MB: parts.
    if (statSync(path).size > 256 << 20) await putInParts(bucket, `collection/${file}`, path);
    else await bucket.put(`collection/${file}`, new Uint8Array(readFileSync(path)));
  }
  return async (path) => {
    const response = await mf.dispatchFetch(`http://worker${path}`);
    return { status: response.status, gets: Number(response.headers.get("X-R2-Gets")), body: await response.json() };
  };
}

/** One R2 multipart upload of the file at `path`, 64 MiB a part. */
async function putInParts(bucket, key, path) {
  const upload = await bucket.createMultipartUpload(key);
  const parts = [];
  const file = await open(path);
  try {
    const part = Buffer.alloc(64 << 20);
    for (let n = 1; ; n++) {
      const { bytesRead } = await file.read(part, 0, part.length, null);
      if (!bytesRead) break;
      parts.push(await upload.uploadPart(n, new Uint8Array(part.subarray(0, bytesRead))));
    }
  } finally {
    await file.close();
  }
  await upload.complete(parts);
}

/** The Worker's JSON (BigInts as strings, bytes as arrays) as a read result. */
function asRead(body) {
  const wide = ["int64", "uint64", "timestamp_ns"].includes(body.dtype);
  const one = (v) => (wide ? BigInt(v) : body.dtype === "binary" ? new Uint8Array(v) : v === null ? NaN : v); // JSON writes NaN as null
  return { dtype: body.dtype, data: body.data.map(one) };
}

describe("a Worker reading from R2", () => {
  it("opens with two gets, reads each array with one, then from the cache", async () => {
    const fetch = await worker("every_dtype_zstd");
    const want = expected("every_dtype_zstd");
    const listed = await fetch("/datasets");
    assert.equal(listed.gets, 2, "open: the data tail and the mask");
    assert.deepEqual(listed.body.datasets, want.datasets.map((d) => d.name));
    for (const a of want.datasets[0].arrays) {
      if (a.dtype === "float32" || a.dtype === "float64") continue; // JSON has no NaN; floats are below
      const read = await fetch(`/read?dataset=chunked&array=${a.name}`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.ok(read.gets <= 1, `${a.name}: ${read.gets} gets`);
      sameValues(asRead(read.body), a.values, a.dtype, a.name);
    }
    const again = await fetch("/read?dataset=chunked&array=int64");
    assert.equal(again.gets, 0, "a cached read costs no get");
  });

  it("reads float windows", async () => {
    const fetch = await worker("every_dtype_lz4");
    const a = expected("every_dtype_lz4").datasets[0].arrays.find((x) => x.name === "float64");
    const read = await fetch("/read?dataset=chunked&array=float64&start=3&shape=6");
    sameValues(asRead(read.body), window(a.values, a.shape, [3], [6]), "float64", "window");
  });

  it("honours deleted.mask from R2", async () => {
    const fetch = await worker("deleted_datasets");
    const want = expected("deleted_datasets");
    const listed = await fetch("/datasets");
    assert.deepEqual(listed.body.datasets, want.datasets.map((d) => d.name));
    const hidden = `/read?dataset=${encodeURIComponent("never there")}&array=x`;
    assert.equal((await fetch(hidden)).body.code, "DatasetNotFound");
  });

  it("reads an atlas-python collection", async () => {
    const fetch = await worker("python_netcdf");
    for (const d of expected("python_netcdf").datasets.slice(0, 2)) {
      for (const a of d.arrays) {
        const read = await fetch(`/read?dataset=${encodeURIComponent(d.name)}&array=${encodeURIComponent(a.name)}`);
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.deepEqual(read.body.shape, a.shape);
        sameValues(asRead(read.body), a.values, a.dtype, `${d.name} ${a.name}`);
      }
    }
  });

  it("reads one dataset of the scale collection with a few gets, within a Worker's 128 MB (tests/reader_scale.rs writes it)", async () => {
    const before = new Set(workerdProcesses());
    const fetch = await worker("scale");
    // Miniflare enforces no memory limit, so measure the workerd process
    // itself: its peak RSS is set back to its RSS after the upload, and what
    // the reads add to it (the isolate's wasm memory and heap, and the R2
    // simulator serving them) must stay under a Worker's 128 MB. Wasm
    // memory, the bulk of it, is fresh pages, so the upload's freed pages
    // cannot hide it.
    const [workerd] = workerdProcesses().filter((pid) => !before.has(pid));
    assert.ok(workerd, "the scale Worker's workerd process");
    writeFileSync(`/proc/${workerd}/clear_refs`, "5");
    const settled = memory(workerd).rss;
    const samples = JSON.parse(readFileSync(join(FIXTURES, "scale", "samples.json"), "utf8")).samples.filter((s) => s.value);
    let first = true;
    for (const sample of samples.slice(0, 3)) {
      const read = await fetch(`/read?dataset=${encodeURIComponent(sample.name)}&array=value`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual(read.body.data, sample.value, sample.name);
      // Open (tail, mask), then the segment's root, its row with its run and the small tables, the block.
      assert.ok(read.gets <= (first ? 8 : 3), `${sample.name}: ${read.gets} gets`);
      first = false;
    }
    const grown = memory(workerd).peak - settled;
    console.log(`# workerd: the reads raised peak RSS by ${(grown / 2 ** 20).toFixed(1)} MiB over ${(settled / 2 ** 20).toFixed(1)} MiB`);
    assert.ok(grown < 128 * 2 ** 20, `the reads took workerd ${grown} bytes past its settled RSS`);
  });
});

/** The workerd processes under this one (miniflare starts one per instance). */
function workerdProcesses() {
  const parents = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {} // it ended while we looked
  }
  const under = (pid) => pid === process.pid || (parents.has(pid) && pid > 1 && under(parents.get(pid)));
  return [...parents.keys()].filter((pid) => {
    try {
      return under(pid) && readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd";
    } catch {
      return false;
    }
  });
}

/** A process's resident and peak resident bytes (`VmRSS`, `VmHWM`). */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field) => Number(new RegExp(`${field}:\\s*(\\d+)`).exec(status)[1]) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}
