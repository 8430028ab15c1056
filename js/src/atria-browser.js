// atlas-wasm/atria in browsers and bundlers: the Atria module is fetched
// from beside this file (bundlers see the `new URL(..., import.meta.url)`).
import init from "./atria_wasm.js";
import { bindInit } from "./atria.js";

bindInit(() => init({ module_or_path: new URL("./atria_wasm_bg.wasm", import.meta.url) }));

export { AtriaCache, AtriaError, AtriaSplit, ParquetFile } from "./atria.js";
