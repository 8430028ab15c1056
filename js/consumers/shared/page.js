// A page's entry: reads the collection named by `?data=URL` and leaves what
// it read (or why it failed) in `window.atlasResult` for the runner, with
// how many Web Workers the package started: its decode workers, which start
// only once the decode module has loaded, so a bundler must have emitted and
// located both (decode-worker.js, atlas_decode_bg.wasm).
import * as atlasWasm from "atlas-wasm";
import { readCollection } from "./read.js";

let workers = 0;
globalThis.Worker = class extends globalThis.Worker {
  constructor(...args) {
    super(...args);
    workers++;
  }
};
globalThis.decodeWorkersStarted = () => workers;

const data = new URLSearchParams(location.search).get("data");
readCollection(atlasWasm, data)
  .then(
    (result) => (window.atlasResult = { ...result, workers }),
    (error) => (window.atlasResult = { failed: `${error?.code ?? ""} ${error?.stack ?? error}` }),
  )
  .finally(() => (document.title = "done"));
