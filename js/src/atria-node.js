// atlas-wasm/atria in Node (and Bun, Deno): the Atria module is read from
// beside this file and compiled, as the core entry does (node.js).
import { readFile } from "node:fs/promises";
import { initSync } from "./atria_wasm.js";
import { bindInit } from "./atria.js";
import { useTransport } from "./http.js";
import { nodeFetch } from "./node-fetch.js";

// URLs are read over node:http(s), not undici's fetch (node-fetch.js says why).
useTransport(nodeFetch);

bindInit(async () => {
  const bytes = await readFile(new URL("./atria_wasm_bg.wasm", import.meta.url));
  initSync({ module: await WebAssembly.compile(bytes) });
});

export { AtriaCache, AtriaError, AtriaSplit, ParquetFile } from "./atria.js";
