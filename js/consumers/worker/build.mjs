// Bundles worker.js as `wrangler deploy` does: esbuild, ES module output,
// the "workerd" export condition first, and every imported .wasm left as a
// module of its own (copied beside the bundle) that workerd compiles.
import { copyFileSync, mkdirSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { build } from "esbuild";

const out = "dist";
mkdirSync(out, { recursive: true });

const wasmModules = {
  name: "wasm-modules",
  setup(b) {
    b.onResolve({ filter: /\.wasm$/ }, ({ path, resolveDir }) => {
      const file = resolve(resolveDir, path);
      copyFileSync(file, `${out}/${basename(file)}`);
      return { path: `./${basename(file)}`, external: true };
    });
  },
};

await build({
  entryPoints: ["worker.js"],
  outfile: `${out}/worker.js`,
  bundle: true,
  format: "esm",
  target: "es2022",
  conditions: ["workerd", "worker", "browser"],
  mainFields: ["module", "main"],
  plugins: [wasmModules],
  logLevel: "warning",
});
console.log(`bundled ${out}/worker.js`);
