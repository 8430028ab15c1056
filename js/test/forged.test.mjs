// The forged collections of tests/reader_forged.rs (written to
// $ATLAS_FIXTURES/forged/ by its ignored test write_forged_fixtures) read
// through the npm package in Node: each must end in its typed code, and the
// wasm memory (WebAssembly.Memory byteLength, which never shrinks) must stay
// under twice the 64 MiB budget. Each case runs in a fresh worker thread, so
// each measures its own instance.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { FIXTURES } from "./expect.mjs";

const FORGED = join(FIXTURES, "forged");
const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));
const BUDGET = 64 << 20;
const MIB = 1 << 20;

/**
 * Where wasm32 rightly answers otherwise than the native test: a `String` is
 * 12 bytes there (24 natively), so 3 M of them charge 36 MB, within the
 * budget, and the decoder reaches the first item, a nil where a string
 * must be.
 */
const WASM32_CODE = { "a 3 MB footer whose pool claims 3 M strings (72 MB decoded)": "CorruptCollection" };

/**
 * Known, not fixed here (src/format/codec.rs is outside this change): an
 * unsized zstd frame grows its output 16 → 32 → 64 MiB, and wasm's linear
 * memory keeps every step's high-water mark, 128.1 MiB, just past the bound.
 */
function run(dir) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./forged-worker.mjs", import.meta.url), {
      workerData: { dir, glue: join(PACKAGE, "dist", "atlas_wasm.js"), maxMemory: BUDGET },
    });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
  });
}

describe("forged collections through the package in Node", { skip: !existsSync(join(FORGED, "cases.json")) && "no forged fixtures (cargo test --features writer --test reader_forged -- --ignored write_forged_fixtures)" }, () => {
  const cases = existsSync(join(FORGED, "cases.json")) ? JSON.parse(readFileSync(join(FORGED, "cases.json"), "utf8")) : [];
  it("there is a case for every lie", () => assert.ok(cases.length >= 10, `${cases.length} cases`));
  for (const c of cases) {
    it(c.what, async (t) => {
      const got = await run(join(FORGED, c.dir));
      const line = `${c.what}: ${c.bytes} B -> ${got.code} in ${got.ms.toFixed(1)} ms, wasm memory ${(got.before / MIB).toFixed(1)} -> ${(got.after / MIB).toFixed(1)} MiB`;
      t.diagnostic(line);
      console.log(`forged: ${line}`);
      assert.equal(got.code, WASM32_CODE[c.what] ?? c.code, got.message);
      assert.ok(got.after < 2 * BUDGET, `${(got.after / MIB).toFixed(1)} MiB of wasm memory`);
    });
  }
});
