// Node (and Bun, Deno): the modules are read from beside this file. Compiling
// first and instantiating synchronously measured 3x faster in Node 20 than
// WebAssembly.instantiate(bytes) (docs/js-api.md, "Size and start-up").
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { initSync } from "./atlas_wasm.js";
import { bindInit } from "./atlas.js";
import { useTransport } from "./http.js";
import { nodeFetch } from "./node-fetch.js";
import { nodeWorker } from "./node-worker.js";

const compile = async (name) => WebAssembly.compile(await readFile(new URL(name, import.meta.url)));

// URLs are read over node:http(s), not undici's fetch (node-fetch.js says why).
useTransport(nodeFetch);

bindInit(
  async () => {
    initSync({ module: await compile("./atlas_wasm_bg.wasm") });
  },
  {
    spawn: nodeWorker,
    cores: availableParallelism(),
    decoder: () => compile("./atlas_decode_bg.wasm"),
  },
);

export { Atlas, Dataset } from "./atlas.js";
export { AtlasError } from "./errors.js";
