// A Node (or Bun) script: `node main.js URL` reads the collection at URL
// and prints what it read as JSON.
import * as atlasWasm from "atlas-wasm";
import { readCollection } from "./read.js";

console.log(JSON.stringify(await readCollection(atlasWasm, process.argv[2])));
