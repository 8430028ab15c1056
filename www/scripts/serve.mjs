/**
 * Serves the built dashboard (www/dist/) and the sample collections under
 * /collections/, with the package's own test server (js/test/server.mjs):
 * HTTP Range (206/416, Content-Range), ETags, CORS with Expose-Headers and
 * preflights, text/javascript and application/wasm.
 *
 * CLI: node scripts/serve.mjs [--port 8080] [--host 127.0.0.1]
 */
import { existsSync, lstatSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../js/test/server.mjs";

export const WWW = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DIST = join(WWW, "dist");
export const SAMPLES = join(WWW, "sample", "out");

/** Starts the dashboard's server; `port` 0 picks a free one. */
export async function serveDashboard({ port = 0, host = "127.0.0.1" } = {}) {
  if (!existsSync(join(DIST, "index.html"))) throw new Error(`${DIST} has no index.html: run 'npm run build' in www/ first`);
  const link = join(DIST, "collections");
  // A relative link, so dist/ can move with the samples beside it.
  if (!existsSync(link) && !isLink(link)) symlinkSync(join("..", "sample", "out"), link, "dir");
  return startServer({ root: DIST, port, host });
}

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const server = await serveDashboard({ port: Number(arg("port", 8080)), host: arg("host", "127.0.0.1") });
  if (!existsSync(join(SAMPLES, "ocean", "data.atlas"))) console.warn(`no sample collections in ${SAMPLES}: run www/scripts/serve.sh to make them`);
  console.log(`ATLAS dashboard at ${server.url}/?url=collections/ocean`);
  console.log(`  12,000 datasets:  ${server.url}/?url=collections/stations`);
  console.log("Ctrl-C stops it.");
}
