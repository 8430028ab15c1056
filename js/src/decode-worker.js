// A decode worker in a browser (a module Web Worker): see decode-serve.js.
import { serve } from "./decode-serve.js";

serve(
  (handle) => self.addEventListener("message", (event) => handle(event.data)),
  (message, transfer) => self.postMessage(message, transfer ?? []),
);
