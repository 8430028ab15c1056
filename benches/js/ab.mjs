// Builds of atlas-wasm against each other, in one sitting: each workload read
// by each build in fresh processes, builds alternating run by run over one
// range server, medians and the ratio of each build to the first. What a
// change bought, measured beside what it replaced on the same noisy machine.
//
//   node benches/js/ab.mjs WORKLOAD_DIR --entries before=/path/to/dist/node.js,after=js/dist/node.js
//        [--workloads w1,w2,w3] [--latency 20] [--runs 5]
//
// An entry is a build's node.js (the package's Node entry); a build of an
// older commit: `git worktree add /tmp/old COMMIT`, then its js/scripts/build.sh.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer } from "./server.mjs";
import { median } from "./stats.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const [dir] = argv;
const entries = option("entries", "").split(",").filter(Boolean).map((pair) => {
  const at = pair.indexOf("=");
  return { name: pair.slice(0, at), path: resolve(pair.slice(at + 1)) };
});
if (!dir || entries.length < 2) {
  console.error("usage: node benches/js/ab.mjs WORKLOAD_DIR --entries a=PATH,b=PATH [--workloads w2] [--latency 20] [--runs 5]");
  process.exit(2);
}
const workloads = option("workloads", "w1,w2,w3").split(",");
const runs = Number(option("runs", 5));
const latency = Number(option("latency", 20));
const want = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
const reader = fileURLToPath(new URL("./reader.mjs", import.meta.url));

const server = await startServer({ root: dir, latencyMs: latency });
const times = new Map();
try {
  for (let run = 0; run < runs; run++) {
    for (const workload of workloads) {
      for (const entry of entries) {
        const env = { ...process.env, ATLAS_WASM_ENTRY: entry.path };
        // Not execFileSync: the server answers from this process's event loop.
        const { stdout } = await promisify(execFile)(process.execPath, [reader, "atlas-wasm", workload, server.url, dir], { env });
        const result = JSON.parse(stdout.trim().split("\n").at(-1));
        if (result.checksum !== want[workload.slice(0, 2)]) throw new Error(`${entry.name} ${workload}: checksum ${result.checksum}`);
        const key = `${workload} ${entry.name}`;
        times.set(key, [...(times.get(key) ?? []), result.ms]);
      }
    }
  }
} finally {
  await server.close();
}

console.log(`${runs} fresh processes per cell, ${latency} ms per request, builds alternating\n`);
console.log(`| workload | build | median ms | ÷ ${entries[0].name} | all runs |`);
console.log("|---|---|---:|---:|---|");
for (const workload of workloads) {
  const first = median(times.get(`${workload} ${entries[0].name}`));
  for (const entry of entries) {
    const all = times.get(`${workload} ${entry.name}`);
    const m = median(all);
    console.log(`| ${workload} | ${entry.name} | ${m.toFixed(1)} | ${(m / first).toFixed(2)} | ${all.map((t) => t.toFixed(0)).join(", ")} |`);
  }
}
