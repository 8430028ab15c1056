// Prints the size of the built .wasm and what loading it costs in this Node:
// compile, instantiate (through the package's own init), and a first open.
// Run after scripts/build.sh: node scripts/measure.mjs [COLLECTION_DIR]
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const wasmUrl = new URL("../dist/atlas_wasm_bg.wasm", import.meta.url);
const bytes = readFileSync(wasmUrl);
const ms = (t) => `${(performance.now() - t).toFixed(1)} ms`;

let t = performance.now();
await WebAssembly.compile(bytes);
const compile = ms(t);

t = performance.now();
const { Atlas } = await import("../dist/node.js");
const dir = process.argv[2];
const source = dir ? Atlas.fromBytes(readFileSync(`${dir}/data.atlas`)) : Atlas.fromBytes(new Uint8Array(0));
await Atlas.open({ data: source }).catch(() => {}); // the first open loads the module
const firstOpen = ms(t);

console.log(`wasm: ${bytes.length} bytes, ${gzipSync(bytes, { level: 9 }).length} gzip -9`);
console.log(`compile (bare WebAssembly.compile): ${compile}`);
console.log(`import + init + first open: ${firstOpen}`);
