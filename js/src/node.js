// Node (and Bun, Deno): the module is read from beside this file. Compiling
// first and instantiating synchronously measured 3x faster in Node 20 than
// WebAssembly.instantiate(bytes) (docs/js-api.md, "Size and start-up").
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { initSync } from "./atlas_wasm.js";
import { bindInit } from "./atlas.js";
import { nodeWorker } from "./node-worker.js";

bindInit(
  async () => {
    const bytes = await readFile(new URL("./atlas_wasm_bg.wasm", import.meta.url));
    const module = await WebAssembly.compile(bytes);
    initSync({ module });
    return module;
  },
  { spawn: nodeWorker, cores: availableParallelism() },
);

export { Atlas, Dataset } from "./atlas.js";
export { AtlasError } from "./errors.js";
