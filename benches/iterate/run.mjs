// Serves the collections over HTTP and runs iterate.mjs in fresh processes:
// `atlas.iterate` against one `readAcross` of everything, for each size.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../js/test/server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const [work, ...sizes] = process.argv.slice(2);
const BATCH = 10_000;
// A segment footer of N arrays takes ~320 N bytes and the reader's budget
// check asks 4x that: raise maxMemory to what the largest needs.
const MAX_MEMORY = 3.5 * 2 ** 30;
const server = await startServer({ root: work });
const mib = (b) => (b / 2 ** 20).toFixed(0);
console.log(`| datasets | read | ms | RSS after open MiB | after first batch | peak RSS | peak ÷ readAcross's | wasm memory MiB |`);
console.log(`|---:|---|---:|---:|---:|---:|---:|---:|`);
try {
  for (const size of sizes) {
    // Asynchronously: the server answers from this process's event loop.
    const run = async (mode) => {
      const args = [join(here, "iterate.mjs"), `${server.url}/${size}`, mode, String(BATCH), String(MAX_MEMORY)];
      const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
      return JSON.parse(stdout.trim().split("\n").pop());
    };
    const across = await run("across");
    const iterate = await run("iterate");
    for (const [label, r] of [[`iterate (batch ${BATCH})`, iterate], ["readAcross (all at once)", across]]) {
      console.log(`| ${r.count.toLocaleString("en")} | ${label} | ${r.ms.toFixed(0)} | ${mib(r.afterOpen)} | ${mib(r.afterFirst)} | ${mib(r.hwm)} | ${(r.hwm / across.hwm).toFixed(2)} | ${mib(r.wasm)} |`);
    }
  }
} finally {
  server.close();
}
