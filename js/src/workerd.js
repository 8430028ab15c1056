// Cloudflare Workers: the bundler hands over the compiled WebAssembly.Module,
// since workerd refuses to compile wasm from bytes at run time. workerd has
// no workers to decode on: blocks are decoded inline.
import module from "./atlas_wasm_bg.wasm";
import { initSync } from "./atlas_wasm.js";
import { bindInit } from "./atlas.js";

bindInit(() => initSync({ module }));

export { Atlas, Dataset } from "./atlas.js";
export { AtlasError } from "./errors.js";
