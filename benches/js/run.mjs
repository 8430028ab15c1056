// Runs every reader on every workload in fresh processes against one local
// range server, alternating readers so that a noisy machine hits all alike,
// and prints medians with ratios to zarrita. Called by run.sh.
//
//   node run.mjs WORKLOAD_DIR NATIVE_BINARY [--runs 3] [--latency 0,20] [--out results.json]
//                [--readers atlas-wasm,zarrita,hyparquet,atlas-rust]
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.mjs";
import { median } from "./stats.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at < 0 ? fallback : argv[at + 1];
};
const [dir, native] = argv;
const runs = Number(option("runs", 3));
const latencies = option("latency", "0,20").split(",").map(Number);
const out = option("out", undefined);
const readers = option("readers", "atlas-wasm,zarrita,hyparquet,atlas-rust").split(",");
const want = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
const here = fileURLToPath(new URL(".", import.meta.url));

const WORKLOADS = {
  w1: `W1 list ${want.datasets} names + one attribute each`,
  w2: `W2 \`${want.array}\` of all ${want.datasets} datasets`,
  w3: `W3 one ${want.w3_shape.join("×")} window of one dataset`,
};
// [reader, how it reads, workload]
const ALL_CASES = [
  ["atlas-wasm", "", "w1"],
  ["atlas-wasm", "tailProbeBytes 512 KiB", "w1-probe"],
  ["zarrita", "", "w1"],
  ["hyparquet", "", "w1"],
  ["atlas-rust", "native", "w1"],
  ["atlas-wasm", "readAcross", "w2"],
  ["atlas-wasm", "per-dataset reads", "w2-each"],
  ["zarrita", "", "w2"],
  ["hyparquet", "", "w2"],
  ["atlas-rust", "native, join_all(read_array)", "w2"],
  ["atlas-wasm", "", "w3"],
  ["zarrita", "", "w3"],
  ["hyparquet", "", "w3"],
  ["atlas-rust", "native", "w3"],
];
const CASES = ALL_CASES.filter(([reader]) => readers.includes(reader));
const sumOf = (workload) => want[workload.slice(0, 2)];

function runOnce(server, [reader, , workload]) {
  const command =
    reader === "atlas-rust"
      ? [native, workload, server.url, ...(workload === "w3" ? [want.w3_dataset, want.w3_start.join(","), want.w3_shape.join(",")] : [])]
      : [process.execPath, join(here, "reader.mjs"), reader, workload, server.url, dir];
  return new Promise((resolve, reject) => {
    server.reset();
    const child = spawn(command[0], command.slice(1), { cwd: here, stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    child.stdout.on("data", (d) => (text += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${command.join(" ")} exited ${code}`));
      const result = JSON.parse(text.trim().split("\n").at(-1));
      resolve({ ...result, requests: server.stats.requests, bytes: server.stats.bytes, maxActive: server.stats.maxActive });
    });
  });
}

const server = await startServer({ root: dir });
const results = [];
try {
  for (const latency of latencies) {
    server.setLatency(latency);
    const samples = CASES.map(() => []);
    for (let run = 0; run < runs; run++) {
      for (const [i, c] of CASES.entries()) {
        const r = await runOnce(server, c);
        if (r.checksum !== sumOf(c[2])) throw new Error(`${c[0]} ${c[2]}: checksum ${r.checksum}, expected ${sumOf(c[2])}`);
        samples[i].push(r);
        process.stderr.write(`  ${latency} ms  ${c[0].padEnd(10)} ${c[2].padEnd(7)} run ${run + 1}: ${r.ms.toFixed(1)} ms, ${r.requests} req, ${r.bytes} B, ${(r.rssKb / 1024).toFixed(0)} MiB\n`);
      }
    }
    for (const [i, [reader, how, workload]] of CASES.entries()) {
      const s = samples[i];
      results.push({
        latency,
        reader,
        how,
        workload,
        ms: median(s.map((r) => r.ms)),
        requests: median(s.map((r) => r.requests)),
        bytes: median(s.map((r) => r.bytes)),
        maxInFlight: Math.max(...s.map((r) => r.maxActive)),
        rssMiB: median(s.map((r) => r.rssKb)) / 1024,
        initMs: s[0].initMs === undefined ? undefined : median(s.map((r) => r.initMs)),
        checksum: s[0].checksum,
      });
    }
  }
} finally {
  await server.close();
}

const machine = `${cpus().length} × ${cpus()[0].model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${runs} fresh processes per cell (median)`;
const mb = (b) => (b / 1e6).toFixed(b < 1e6 ? 3 : 1);
const lines = [`Machine: ${machine}.`, ""];
for (const latency of latencies) {
  lines.push(`#### ${latency} ms per request, ≤ 6 requests in flight`, "");
  lines.push("| workload | reader | ms | ÷ zarrita | requests | MB read | peak RSS MiB |", "|---|---|---:|---:|---:|---:|---:|");
  for (const key of Object.keys(WORKLOADS)) {
    const rows = results.filter((r) => r.latency === latency && r.workload.startsWith(key));
    const zarrita = rows.find((r) => r.reader === "zarrita") ?? { ms: NaN };
    for (const r of rows) {
      const name = r.how ? `${r.reader} (${r.how})` : r.reader;
      lines.push(`| ${WORKLOADS[key]} | ${name} | ${r.ms.toFixed(1)} | ${(r.ms / zarrita.ms).toFixed(2)} | ${r.requests} | ${mb(r.bytes)} | ${r.rssMiB.toFixed(0)} |`);
    }
  }
  lines.push("");
}
const init = results.filter((r) => r.initMs !== undefined).map((r) => r.initMs);
if (init.length) lines.push(`atlas-wasm compiled its module in a median ${median(init).toFixed(1)} ms per process, before each clock started.`, "");
console.log(lines.join("\n"));
if (out) writeFileSync(out, JSON.stringify({ machine, expected: want, results }, null, 2) + "\n");
