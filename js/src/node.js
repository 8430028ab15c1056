// Node (and Bun, Deno): the module is read from beside this file.
import { readFile } from "node:fs/promises";
import init from "./atlas_wasm.js";
import { bindInit } from "./atlas.js";

bindInit(async () => init({ module_or_path: await readFile(new URL("./atlas_wasm_bg.wasm", import.meta.url)) }));

export { Atlas, Dataset } from "./atlas.js";
export { AtlasError } from "./errors.js";
