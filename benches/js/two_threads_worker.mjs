// The worker of two_threads.mjs: instantiates the decode module it is sent,
// warms it on one block, then decodes each block it is given and sends the
// bytes back as a transferred buffer, as the package's decode workers do.
import { parentPort } from "node:worker_threads";

const decoder = await import(new URL("../../js/dist/atlas_decode.js", import.meta.url).href);

parentPort.on("message", ({ module, warm, i, bytes, size }) => {
  if (module) {
    decoder.initSync({ module });
    for (let n = 0; n < 3; n++) decoder.decodeBlock("zstd", warm, size, size);
    parentPort.postMessage({ ready: true });
    return;
  }
  const out = decoder.decodeBlock("zstd", bytes, size, size).slice();
  parentPort.postMessage({ i, out }, [out.buffer]);
});
