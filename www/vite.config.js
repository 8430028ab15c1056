// The dashboard builds to www/dist/: plain static files (relative URLs, so
// they work under any path), the .wasm of atlas-wasm among them.
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    target: "es2022",
    // The wasm module stays a file of its own, fetched and compiled by streaming.
    assetsInlineLimit: (file) => (file.endsWith(".wasm") ? false : undefined),
  },
  // atlas-wasm is linked from ../js; let the dev server read it there.
  server: { fs: { allow: [".."] } },
});
