// A decode worker in Node (worker_threads): see decode-serve.js.
import { parentPort } from "node:worker_threads";
import { serve } from "./decode-serve.js";

serve(
  (handle) => parentPort.on("message", handle),
  (message, transfer) => parentPort.postMessage(message, transfer ?? []),
);
