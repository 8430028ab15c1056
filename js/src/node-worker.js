// Node's decode workers: worker_threads running decode-worker-node.js. A
// worker holds the process open only while it has blocks to decode.
import { Worker } from "node:worker_threads";

export function nodeWorker(onMessage, onError) {
  const worker = new Worker(new URL("./decode-worker-node.js", import.meta.url));
  worker.on("message", onMessage);
  worker.on("error", onError);
  worker.unref();
  return {
    post: (message, transfer) => worker.postMessage(message, transfer ?? []),
    terminate: () => void worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
}
