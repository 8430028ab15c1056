// A call leaves nothing behind in Chromium either: the soak of
// residue-soak.mjs (the one call-residue.test.mjs runs in Node) inside a
// headless page, through the installed package's browser entries. V8 there
// collects on demand with --js-flags=--expose-gc, and performance.memory
// reads the heap exactly with --enable-precise-memory-info (otherwise it is
// rounded and cached). Tasks are queued with scheduler.postTask, which a
// page does not clamp to 4 ms as it does nested setTimeouts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { CORPUS, configTree, expectedAtria } from "./atria-expect.mjs";
import { openPage } from "./page.mjs";
import { BOUND, CALLS } from "./residue-soak.mjs";
import { startServer } from "./server.mjs";

const soakModule = readFileSync(new URL("./residue-soak.mjs", import.meta.url), "utf8");
let page, closePage, corpus;

before(async () => {
  corpus = await startServer({ root: CORPUS });
  ({ page, close: closePage } = await openPage(
    `
    window.atria = await import("./atlas-wasm/dist/atria-browser.js");
    window.soak = await import(URL.createObjectURL(new Blob([${JSON.stringify(soakModule)}], { type: "text/javascript" })));
    const nextTurn = () => scheduler.postTask(() => {});
    window.runtime = {
      nextTurn,
      async settledHeap() {
        let least = Infinity;
        for (let i = 0; i < 4; i++) {
          await nextTurn(); // lets finalization callbacks run between collections
          gc();
          least = Math.min(least, performance.memory.usedJSHeapSize);
        }
        return least;
      },
    };`,
    { args: ["--js-flags=--expose-gc", "--enable-precise-memory-info"] },
  ));
});
after(async () => {
  await closePage?.();
  await corpus?.close();
});

function assertFlat(grown, t) {
  for (const [label, bytes] of Object.entries(grown)) {
    t.diagnostic(`${label}: the heap grew ${bytes} bytes over ${CALLS} calls`);
    assert.ok(bytes < BOUND, `${label}: the heap grew ${bytes} bytes over ${CALLS} calls`);
  }
}

describe("in headless Chromium", () => {
  it("read, readAcross and stats leave no residue, signals fired or not", async (t) => {
    const grown = await page.evaluate(async () => {
      const bytes = new Uint8Array(await (await fetch("./fixtures/ten_thousand_datasets/data.atlas")).arrayBuffer());
      return window.soak.soakCollection(window.atlasWasm.Atlas, bytes, window.runtime);
    });
    assertFlat(grown, t);
  });

  it("an Atria row leaves no residue, signals fired or not", async (t) => {
    const expected = expectedAtria();
    const [splitName] = Object.keys(expected.msgpack);
    const grown = await page.evaluate(
      async ({ base, tree, splitName }) => {
        const files = new Map();
        for (const path of tree.files) {
          files.set(path, new Uint8Array(await (await fetch(new URL(path, base))).arrayBuffer()));
        }
        const dirs = new Map(Object.entries(tree.dirs));
        const { atriaStore, soakAtriaRow } = window.soak;
        const store = (hang) => atriaStore(files, dirs, hang, window.runtime.nextTurn);
        return soakAtriaRow(window.atria.AtriaCache, store, splitName, window.runtime);
      },
      { base: `${corpus.url}/${expected.config}/`, tree: configTree(expected), splitName },
    );
    assertFlat({ "Atria row": grown }, t);
  });
});
