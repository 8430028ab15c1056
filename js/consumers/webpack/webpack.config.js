// The least a webpack 5 app states: its entry and where the bundle goes.
// Nothing here is about atlas-wasm.
import { fileURLToPath } from "node:url";

export default {
  mode: "production",
  entry: "./page.js",
  output: { path: fileURLToPath(new URL("./dist", import.meta.url)), filename: "main.js", clean: true },
};
