// The catalogue (open, 1,000 names, one attribute each) from the workload's
// bytes in memory, several times in one fresh Node process: what V8's first
// calls into the module cost against later ones. Run it with
// `node --no-wasm-lazy-compilation ...` to see how much of that is lazy
// compilation (each wasm function compiled on its first call).
//
//   node benches/js/first_calls.mjs WORKLOAD_DIR [--times 4]
//
// Prints the module's compile ms (before any clock) and each pass's ms.
// js/dist must be built (bash js/scripts/build.sh), or ATLAS_WASM_ENTRY set.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const times = argv.includes("--times") ? Number(argv[argv.indexOf("--times") + 1]) : 4;
const want = JSON.parse(readFileSync(join(argv[0], "expected.json"), "utf8"));
const bytes = readFileSync(join(argv[0], "atlas", "data.atlas"));
const entry = process.env.ATLAS_WASM_ENTRY ?? new URL("../../js/dist/node.js", import.meta.url).href;
const { Atlas } = await import(entry.startsWith("file:") ? entry : pathToFileURL(entry).href);

let started = performance.now();
await Atlas.open({ data: Atlas.fromBytes(new Uint8Array(0)) }).catch(() => {}); // compiles the module
const compileMs = performance.now() - started;
const passes = [];
for (let pass = 0; pass < times; pass++) {
  started = performance.now();
  const atlas = await Atlas.open({ data: Atlas.fromBytes(bytes) });
  const names = atlas.listDatasets();
  const values = await atlas.attributesByDataset(null, want.attribute);
  if (names.length !== want.datasets || Object.keys(values).length !== want.datasets) throw new Error("a short catalogue");
  passes.push(+(performance.now() - started).toFixed(1));
  atlas.close();
}
console.log(JSON.stringify({ compileMs: +compileMs.toFixed(1), passes }));
