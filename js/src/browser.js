// Browsers and bundlers: the module is fetched from beside this file.
import init from "./atlas_wasm.js";
import { bindInit } from "./atlas.js";

bindInit(() => init());

export { Atlas, Dataset } from "./atlas.js";
export { AtlasError } from "./errors.js";
