// atlas-wasm/atria in Cloudflare Workers: the bundler hands over the
// compiled module, since workerd refuses to compile wasm from bytes at run time.
import module from "./atria_wasm_bg.wasm";
import { initSync } from "./atria_wasm.js";
import { bindInit } from "./atria.js";

bindInit(() => initSync({ module }));

export { AtriaCache, AtriaError, AtriaSplit, ParquetFile } from "./atria.js";
