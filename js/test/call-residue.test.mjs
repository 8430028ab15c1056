// A call leaves nothing behind, whether its AbortSignal fires or not: the
// soak of residue-soak.mjs in Node (call-residue-browser.test.mjs runs it in
// Chromium). That file says what it runs and why BOUND holds.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { setImmediate } from "node:timers/promises";
import { Atlas } from "atlas-wasm";
import { AtriaCache } from "atlas-wasm/atria";
import { configDir, configTree, expectedAtria } from "./atria-expect.mjs";
import { FIXTURES } from "./expect.mjs";
import { settledHeap } from "./heap.mjs";
import { BOUND, CALLS, atriaStore, soakAtriaRow, soakCollection } from "./residue-soak.mjs";

const runtime = { nextTurn: () => setImmediate(), settledHeap };

function assertFlat(grown, t) {
  for (const [label, bytes] of Object.entries(grown)) {
    t.diagnostic(`${label}: the heap grew ${bytes} bytes over ${CALLS} calls`);
    assert.ok(bytes < BOUND, `${label}: the heap grew ${bytes} bytes over ${CALLS} calls`);
  }
}

it("read, readAcross and stats leave no residue, signals fired or not", async (t) => {
  const bytes = new Uint8Array(readFileSync(join(FIXTURES, "ten_thousand_datasets", "data.atlas")));
  assertFlat(await soakCollection(Atlas, bytes, runtime), t);
});

it("an Atria row leaves no residue, signals fired or not", async (t) => {
  const expected = expectedAtria();
  const { files, dirs } = configTree(expected);
  const bytes = new Map(files.map((path) => [path, new Uint8Array(readFileSync(join(configDir(expected), path)))]));
  const [splitName] = Object.keys(expected.msgpack);
  const store = (hang) => atriaStore(bytes, new Map(Object.entries(dirs)), hang, runtime.nextTurn);
  assertFlat({ "Atria row": await soakAtriaRow(AtriaCache, store, splitName, runtime) }, t);
});
