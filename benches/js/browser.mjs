// W2 in headless Chromium: `readAcross` of the workload's variable over
// HTTP with the decode pool (Web Workers, the default) and without it, one
// fresh page per run, 20 ms per request. Run by run.sh after the Node table.
//
//   node browser.mjs WORKLOAD_DIR [--runs 3] [--latency 20] [--trace]
//
// ATLAS_WASM_DIST names another build's dist/ directory (default js/dist).
// --trace records each read with Chromium's tracing and prints, per read,
// where the page's main thread spent its time (the events it ran longest,
// nested ones counted in their parents too): what a CPU profile shows only
// as "(program)", such as taking response bodies in.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "./server.mjs";
import { median } from "./stats.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
// Absolute: the page's directory links to it.
const dir = resolve(argv[0]);
const runs = Number(option("runs", 3));
const latency = Number(option("latency", 20));
const tracing = argv.includes("--trace");
const want = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
const dist = process.env.ATLAS_WASM_DIST ? resolve(process.env.ATLAS_WASM_DIST) : fileURLToPath(new URL("../../js/dist", import.meta.url));

const root = mkdtempSync(join(tmpdir(), "atlas-bench-page-"));
writeFileSync(join(root, "index.html"), `<!doctype html><script type="module">
  window.atlasWasm = await import("./dist/browser.js");
  document.title = "ready";
</script>`);
symlinkSync(dist, join(root, "dist"));
symlinkSync(join(dir, "atlas"), join(root, "atlas"));
const server = await startServer({ root, latencyMs: latency });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
const rows = [];
const tracePath = join(root, "trace.json");
try {
  for (const [label, workers] of [["pool (default)", undefined], ["decodeWorkers: 0", 0]]) {
    const times = [];
    for (let run = 0; run < runs; run++) {
      const page = await browser.newPage();
      await page.goto(`${server.url}/index.html`);
      await page.waitForFunction(() => document.title === "ready");
      server.reset();
      if (tracing) await browser.startTracing(page, { path: tracePath, categories: ["devtools.timeline", "v8", "v8.wasm", "blink", "loading", "toplevel", "mojom"] });
      const result = await page.evaluate(
        async ({ array, workers }) => {
          const { Atlas } = window.atlasWasm;
          const started = performance.now();
          const atlas = await Atlas.open(new URL("./atlas/", location.href).href, { decodeWorkers: workers });
          const { data, shape } = await atlas.readAcross(array);
          const ms = performance.now() - started;
          let h = 0;
          const words = new Uint32Array(data.buffer, data.byteOffset, data.length);
          for (let i = 0; i < words.length; i++) h = (h + Math.imul(words[i], i + 1)) >>> 0;
          await atlas.close();
          return { ms, checksum: h, datasets: shape[0] };
        },
        { array: want.array, workers },
      );
      if (tracing) {
        await browser.stopTracing();
        process.stderr.write(mainThread(JSON.parse(readFileSync(tracePath, "utf8"))));
      }
      await page.close();
      if (result.checksum !== want.w2) throw new Error(`checksum ${result.checksum}, expected ${want.w2}`);
      times.push(result.ms);
      process.stderr.write(`  chromium ${label} run ${run + 1}: ${result.ms.toFixed(1)} ms, ${server.stats.requests} req\n`);
    }
    rows.push(`| W2 \`${want.array}\` of all ${want.datasets} datasets, readAcross | ${label} | ${median(times).toFixed(1)} |`);
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
console.log([`#### Headless Chromium, ${latency} ms per request`, "", "| workload | decoding | ms |", "|---|---|---:|", ...rows, ""].join("\n"));

/** The renderer main thread's longest-running trace events, summed by name. */
function mainThread(trace) {
  const events = trace.traceEvents ?? trace;
  const names = new Map(events.filter((e) => e.name === "thread_name").map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const busy = new Map();
  for (const e of events) {
    const thread = `${e.pid}:${e.tid}`;
    if (e.ph !== "X" || !e.dur || names.get(thread) !== "CrRendererMain") continue;
    const byName = busy.get(thread) ?? new Map();
    byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur / 1000);
    busy.set(thread, byName);
  }
  // The page's renderer: the main thread that ran the most.
  const [byName] = [...busy.values()].sort((a, b) => (b.get("RunTask") ?? 0) - (a.get("RunTask") ?? 0));
  const top = [...(byName ?? new Map())].sort((a, b) => b[1] - a[1]).slice(0, 12);
  return top.map(([name, ms]) => `    ${ms.toFixed(1).padStart(7)} ms  ${name}\n`).join("");
}
