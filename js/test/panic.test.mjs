// A panic in the Rust core is a wasm trap. It must reach the caller as a
// rejected promise with code "Internal", never as an uncaught RuntimeError
// that kills the process or the page, and the instance must go on working.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { it } from "node:test";
import { Atlas, AtlasError } from "atlas-wasm";
import { FIXTURES, checkCollection, expected } from "./expect.mjs";

// The glue is internal (not in the package's exports): reach it by path, as
// the same module instance the facade initialised.
const entry = createRequire(import.meta.url).resolve("atlas-wasm/package.json");
const glue = await import(pathToFileURL(join(dirname(entry), "dist", "atlas_wasm.js")).href);

it("a panic inside a call rejects with Internal and the instance survives", async () => {
  let uncaught = null;
  const onUncaught = (e) => (uncaught = e);
  process.on("uncaughtException", onUncaught);
  try {
    const before = await Atlas.open({ data: Atlas.fromBytes(readFileSync(join(FIXTURES, "every_dtype_zstd", "data.atlas"))) });
    for (let i = 0; i < 3; i++) {
      await assert.rejects(glue.__panicInsideCall(), (e) => {
        assert.ok(e instanceof AtlasError, `an AtlasError, not ${e?.constructor?.name}`);
        assert.equal(e.code, "Internal");
        assert.match(e.message, /index out of bounds/);
        return true;
      });
    }
    // Handles opened before and after the trap still read real values.
    await checkCollection(before, expected("every_dtype_zstd"));
    const after = await Atlas.open({ data: Atlas.fromBytes(readFileSync(join(FIXTURES, "every_dtype_lz4", "data.atlas"))) });
    await checkCollection(after, expected("every_dtype_lz4"));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(uncaught, null);
  } finally {
    process.off("uncaughtException", onUncaught);
  }
});
