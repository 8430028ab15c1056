// A page's entry: reads the collection named by `?data=URL` and leaves what
// it read (or why it failed) in `window.atlasResult` for the runner, with
// how many Web Workers of the package's decode pool came up: a worker says
// `{ready: true}` once it has loaded its script (decode-worker.js) and
// instantiated the decode module (atlas_decode_bg.wasm), so a bundler must
// have emitted and located both.
import * as atlasWasm from "atlas-wasm";
import { readCollection } from "./read.js";

let ready = 0;
globalThis.Worker = class extends globalThis.Worker {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => event.data?.ready && ready++);
  }
};
globalThis.decodeWorkersReady = () => ready;

const data = new URLSearchParams(location.search).get("data");
readCollection(atlasWasm, data)
  .then(
    (result) => (window.atlasResult = { ...result, workers: ready }),
    (error) => (window.atlasResult = { failed: `${error?.code ?? ""} ${error?.stack ?? error}` }),
  )
  .finally(() => (document.title = "done"));
