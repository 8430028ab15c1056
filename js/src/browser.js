// Browsers and bundlers: the module is fetched from beside this file and
// compiled here, so that decode workers get the same compiled module.
import init from "./atlas_wasm.js";
import { bindInit } from "./atlas.js";
import { webWorker } from "./pool.js";

bindInit(
  async () => {
    const url = new URL("./atlas_wasm_bg.wasm", import.meta.url);
    const module = await WebAssembly.compileStreaming(fetch(url)).catch(async () =>
      // A server that does not say application/wasm: compile from bytes.
      WebAssembly.compile(await (await fetch(url)).arrayBuffer()),
    );
    await init({ module_or_path: module });
    return module;
  },
  { spawn: typeof Worker === "function" ? webWorker : undefined, cores: globalThis.navigator?.hardwareConcurrency },
);

export { Atlas, Dataset } from "./atlas.js";
export { AtlasError } from "./errors.js";
