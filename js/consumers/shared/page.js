// A page's entry: reads the collection named by `?data=URL` and leaves what
// it read (or why it failed) in `window.atlasResult` for the runner.
import * as atlasWasm from "atlas-wasm";
import { readCollection } from "./read.js";

const data = new URLSearchParams(location.search).get("data");
readCollection(atlasWasm, data)
  .then(
    (result) => (window.atlasResult = result),
    (error) => (window.atlasResult = { failed: `${error?.code ?? ""} ${error?.stack ?? error}` }),
  )
  .finally(() => (document.title = "done"));
