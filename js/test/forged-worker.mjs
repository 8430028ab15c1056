// One forged collection, opened and read whole through the package in a
// fresh worker thread (so a fresh wasm instance): the error's code and the
// wasm memory's byteLength after the call, which never shrinks, so it is
// the peak of this call. Run by forged.test.mjs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parentPort, workerData } from "node:worker_threads";
import { Atlas } from "atlas-wasm";

const { dir, glue, maxMemory } = workerData;
const { initSync } = await import(pathToFileURL(glue).href);
const file = (name) => {
  try {
    return readFileSync(join(dir, name));
  } catch {
    return null;
  }
};
const memory = () => initSync().memory.buffer.byteLength;

// A valid open first, so the instance exists and its start-up memory is known.
const empty = await Atlas.open({ data: Atlas.fromBytes(file("../../empty_collection/data.atlas")) }, { decodeWorkers: 0 });
empty.close();
const before = memory();

const [data, mask] = [file("data.atlas"), file("deleted.mask")];
const started = performance.now();
let code = null;
let message = "";
try {
  const atlas = await Atlas.open({ data: Atlas.fromBytes(data), mask: mask && Atlas.fromBytes(mask) }, { decodeWorkers: 0, maxMemory });
  for (const name of atlas.listDatasets()) {
    const ds = atlas.dataset(name);
    for (const array of ds.listArrays()) await ds.read(array);
  }
  atlas.close();
} catch (error) {
  code = error?.code ?? `not an AtlasError: ${error}`;
  message = String(error?.message ?? error);
}
parentPort.postMessage({ code, message, ms: performance.now() - started, before, after: memory() });
