// Browsers and bundlers: the modules are fetched from beside this file and
// compiled here, so that decode workers get the compiled decode module.
import init from "./atlas_wasm.js";
import { bindInit } from "./atlas.js";
import { webWorker } from "./pool.js";

/** `new URL(…, import.meta.url)` spelled out at each call: bundlers follow that form. */
const compile = (url) =>
  WebAssembly.compileStreaming(fetch(url)).catch(async () =>
    // A server that does not say application/wasm: compile from bytes.
    WebAssembly.compile(await (await fetch(url)).arrayBuffer()),
  );

bindInit(
  async () => {
    await init({ module_or_path: await compile(new URL("./atlas_wasm_bg.wasm", import.meta.url)) });
  },
  {
    spawn: typeof Worker === "function" ? webWorker : undefined,
    cores: globalThis.navigator?.hardwareConcurrency,
    decoder: () => compile(new URL("./atlas_decode_bg.wasm", import.meta.url)),
  },
);

export { Atlas, Dataset } from "./atlas.js";
export { AtlasError } from "./errors.js";
