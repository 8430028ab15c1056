// Where W2's memory goes: atlas-wasm's `readAcross` of the workload's array
// over the benchmark's range server, in fresh processes, with
// `decodeWorkers: 0` and with the default, sampled every 2 ms: peak RSS,
// RSS after the open, JavaScript ArrayBuffers (the answer, bodies in flight,
// buffers posted to and from a worker) and the linear memory of each wasm
// instance on the calling thread (the core, the decode module). Medians.
//
//   node benches/js/memory.mjs WORKLOAD_DIR [--runs 3] [--latency 0]
//
// js/dist must be built (bash js/scripts/build.sh), or ATLAS_WASM_ENTRY set.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const MiB = 2 ** 20;

if (argv[0] === "--child") await measure(argv[1], argv[2], argv[3]);
else await compare();

async function compare() {
  const { startServer } = await import("./server.mjs");
  const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
  const [dir] = argv;
  const want = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
  const runs = Number(option("runs", 3));
  const server = await startServer({ root: dir, latencyMs: Number(option("latency", 0)) });
  const settings = [["0", "decodeWorkers: 0"], ["default", "decodeWorkers: default"]];
  const results = new Map(settings.map(([key]) => [key, []]));
  for (let run = 0; run < runs; run++) {
    for (const [workers] of settings) {
      // Not spawnSync: the server answers from this process's event loop.
      const child = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), "--child", `${server.url}/atlas/`, workers, want.array]);
      results.get(workers).push(JSON.parse(child.stdout));
    }
  }
  await server.close();
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const mib = (bytes) => (bytes / MiB).toFixed(0);
  console.log(`W2 \`${want.array}\` of ${want.datasets} datasets, ${runs} fresh processes each, medians (MiB)\n`);
  console.log("| setting | ms | answer | RSS after open | peak RSS | peak ArrayBuffers | core wasm memory | decode module memory |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const [workers, label] of settings) {
    const all = results.get(workers);
    const m = (key) => median(all.map((r) => r[key]));
    console.log(`| ${label} | ${m("ms").toFixed(0)} | ${mib(m("answer"))} | ${mib(m("rssOpen"))} | ${mib(m("rss"))} | ${mib(m("arrayBuffers"))} | ${mib(m("core"))} | ${mib(m("decoder"))} |`);
  }
}

async function measure(url, workers, array) {
  // The instances this thread makes, in order: the core, then the decode module.
  const instances = [];
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (module, imports) {
    const instance = new Instance(module, imports);
    instances.push(instance);
    return instance;
  };
  const entry = process.env.ATLAS_WASM_ENTRY ?? fileURLToPath(new URL("../../js/dist/node.js", import.meta.url));
  const { Atlas } = await import(entry.startsWith("file:") ? entry : pathToFileURL(entry).href);
  const peak = { rss: 0, arrayBuffers: 0, core: 0, decoder: 0 };
  const sample = () => {
    const usage = process.memoryUsage();
    peak.rss = Math.max(peak.rss, usage.rss);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, usage.arrayBuffers);
    const [core, decoder] = instances.map((i) => i.exports.memory.buffer.byteLength);
    peak.core = Math.max(peak.core, core ?? 0);
    peak.decoder = Math.max(peak.decoder, decoder ?? 0);
  };
  const timer = setInterval(sample, 2);
  const started = performance.now();
  const atlas = await Atlas.open(url, workers === "default" ? {} : { decodeWorkers: Number(workers) });
  const rssOpen = process.memoryUsage().rss;
  const { data } = await atlas.readAcross(array);
  const ms = performance.now() - started;
  sample();
  clearInterval(timer);
  atlas.close();
  // VmHWM: the true peak, between samples too.
  peak.rss = 1024 * Number(/VmHWM:\s*(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
  console.log(JSON.stringify({ ms, answer: data.byteLength, rssOpen, ...peak }));
}
