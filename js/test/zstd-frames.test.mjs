// The zstd frames of tests/zstd_frames.rs (written to $ATLAS_FIXTURES/
// zstd-frames/ by its ignored test write_zstd_frames), decoded by the
// package's decode module: its libzstd runs the fast Huffman loop on wasm32
// (js/scripts/libzstd-wasm32.patch), natively it runs unpatched. Every frame,
// valid or corrupted, must come out as natively (the same bytes, or an error
// of the same code; one listed exception) and never trap. The core's
// libzstd is the same C, built with the same flags; collections read
// through it in conformance.test.mjs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { it } from "node:test";
import { FIXTURES } from "./expect.mjs";

const FRAMES = join(FIXTURES, "zstd-frames");
const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));

/**
 * Where wasm32 rightly decodes other bytes than native: a corrupted stream
 * that reads past its start decodes garbage without an error in both
 * (these frames carry no checksum), and libzstd's 32-bit bit container
 * (wasm32's size_t) fills that garbage otherwise than the 64-bit one. The
 * length must still agree (docs/benchmarks.md, "libzstd's fast Huffman loop on wasm32").
 */
const WASM32_OTHER_BYTES = new Set(["skewed-700-flip41xff"]);

/** FNV-1a, 32 bits, as tests/zstd_frames.rs hashes the native output. */
function fnv1a(bytes) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193) >>> 0;
  return hash;
}

it("every zstd frame decodes in wasm as it does natively", async () => {
  const glue = await import(pathToFileURL(join(PACKAGE, "dist", "atlas_decode.js")).href);
  glue.initSync({ module: new WebAssembly.Module(readFileSync(join(PACKAGE, "dist", "atlas_decode_bg.wasm"))) });
  const cases = JSON.parse(readFileSync(join(FRAMES, "cases.json"), "utf8"));
  assert.ok(cases.length > 300, `${cases.length} frames`);
  let decoded = 0;
  let failed = 0;
  for (const { name, file, size, wanted, native } of cases) {
    const bytes = new Uint8Array(readFileSync(join(FRAMES, file)));
    let answer;
    try {
      const out = glue.decodeBlock("zstd", bytes, size, wanted);
      answer = { length: out.length, fnv1a: fnv1a(out) };
      decoded++;
    } catch (error) {
      assert.ok(!(error instanceof WebAssembly.RuntimeError), `${name}: the instance trapped: ${error}`);
      answer = { error: error.code };
      failed++;
    }
    if (WASM32_OTHER_BYTES.has(name)) {
      assert.equal(answer.length, native.length, name);
      assert.notEqual(answer.fnv1a, native.fnv1a, `${name} now decodes as natively: drop it from WASM32_OTHER_BYTES`);
    } else {
      assert.deepEqual(answer, native, name);
    }
  }
  // Both outcomes were seen, so neither side of the comparison is idle.
  assert.ok(decoded > 250 && failed >= 30, `${decoded} decoded, ${failed} failed`);
});
