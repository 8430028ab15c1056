// Open and one dataset's first read over HTTP at 1,000 to 1,000,000
// datasets, with default options, in Node and in headless Chromium: time,
// requests, bytes served and peak RSS. Each run is a fresh process (Node)
// or a fresh browser (Chromium), so its peak is its own; medians of --runs.
// The memory target: a million at ≤ 1.5× a thousand plus the
// collection footer.
//
//   bash benches/scale/run.sh                      # everything, in one run
//   node benches/js/scale.mjs [--runs 3] [--sizes 1000,1000000] [--writers atlas-rust,atlas-wasm,atlas-wasm-64k] [--latency 0] [--probe 524288]
//
// The collections are benches/scale/native.rs's (target/tmp/scale-v1/{n}
// by atlas-rust, ours-{n} by our writer, ours-64k-{n} with 64 KiB blocks). js/dist must be built (bash
// js/scripts/build.sh), or ATLAS_WASM_DIST name another build's dist/.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const argv = process.argv.slice(2);
const MiB = 2 ** 20;
const dist = process.env.ATLAS_WASM_DIST ? resolve(process.env.ATLAS_WASM_DIST) : fileURLToPath(new URL("../../js/dist", import.meta.url));
const LEN = 24;

if (argv[0] === "--child") await child(argv[1], argv[2], Number(argv[3]));
else await compare();

/** One Node run: open, read one dataset, report time and peak RSS. */
async function child(url, name, probe) {
  const { Atlas } = await import(join(dist, "node.js"));
  const started = performance.now();
  const atlas = await Atlas.open(url, probe ? { tailProbeBytes: probe } : {});
  const read = await atlas.dataset(name).read("value");
  const ms = performance.now() - started;
  check(read.data, name);
  atlas.close();
  // VmHWM, not getrusage's maxrss: Linux carries maxrss across exec from
  // the forking parent, whose range server holds file pages.
  const kib = Number(/VmHWM:\s*(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
  console.log(JSON.stringify({ ms, rss: kib * 1024 }));
}

/** Dataset `dNNNNNNN` holds `d * 100 + i` as float32 (benches/common/mod.rs). */
function check(data, name) {
  const d = Number(name.slice(1));
  if (data.length !== LEN || data.some((v, i) => v !== Math.fround(d * 100 + i))) throw new Error(`wrong values for ${name}`);
}

async function compare() {
  const { startServer } = await import("./server.mjs");
  const { chromium } = await import("playwright-core");
  const option = (flag, fallback) => (argv.includes(`--${flag}`) ? argv[argv.indexOf(`--${flag}`) + 1] : fallback);
  const runs = Number(option("runs", 3));
  const sizes = option("sizes", "1000,1000000").split(",").map(Number);
  const writers = option("writers", "atlas-rust,atlas-wasm,atlas-wasm-64k").split(",");
  const latency = Number(option("latency", 0));
  // The open's first read (`tailProbeBytes`); 0 keeps the default, 64 KiB.
  const probe = Number(option("probe", 0));
  const collections = fileURLToPath(new URL("../../target/tmp/scale-v1/", import.meta.url));

  // The page and the collections under one origin.
  const root = mkdtempSync(join(tmpdir(), "atlas-scale-page-"));
  writeFileSync(join(root, "index.html"), `<!doctype html><script type="module">
    window.atlasWasm = await import("./dist/browser.js");
    document.title = "ready";
  </script>`);
  symlinkSync(dist, join(root, "dist"));
  symlinkSync(collections, join(root, "scale"));
  // Only the collections' requests count, not the page's module and workers.
  const server = await startServer({ root, latencyMs: latency, counts: (path) => path.startsWith("/scale/") });
  const rows = [];
  try {
    for (const n of sizes) {
      for (const writer of writers) {
        const dir = { "atlas-rust": `${n}`, "atlas-wasm": `ours-${n}`, "atlas-wasm-64k": `ours-64k-${n}` }[writer];
        const name = `d${String(Math.floor(n / 2) + 1).padStart(7, "0")}`;
        const url = `${server.url}/scale/${dir}/`;
        const container = statSync(join(collections, dir, "data.atlas")).size;
        // The server reads a file into memory on its first request: not in a run.
        await fetch(`${url}data.atlas`, { method: "HEAD" });
        const node = [];
        const browser = [];
        for (let run = 0; run < runs; run++) {
          server.reset();
          const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), "--child", url, name, String(probe)]);
          node.push({ ...JSON.parse(stdout), requests: server.stats.requests, bytes: server.stats.bytes });
          browser.push(await inChromium(chromium, server, dir, name, probe));
        }
        rows.push({ n, writer, container, node: median(node), chromium: median(browser) });
        process.stderr.write(`  ${n} (${writer}) done\n`);
      }
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  const first = rows[0];
  console.log(`#### Open and one first read over HTTP, ${latency} ms per request, ${probe ? `tailProbeBytes ${probe}` : "default options"} (medians of ${runs})\n`);
  console.log("| datasets | written by | container | runtime | ms | requests | bytes | peak RSS | RSS to the first row |");
  console.log("|---:|---|---:|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    for (const [runtime, m, base] of [["Node", r.node, first.node], ["Chromium tab", r.chromium, first.chromium]]) {
      const cells = [r.n.toLocaleString("en"), r.writer, `${(r.container / MiB).toFixed(1)} MiB`, runtime, m.ms.toFixed(1), m.requests, m.bytes.toLocaleString("en"), `${(m.rss / MiB).toFixed(1)} MiB`, `${(m.rss / base.rss).toFixed(2)}×`];
      console.log(`| ${cells.join(" | ")} |`);
    }
  }
}

/**
 * One Chromium run in a browser of its own: the page's time, the requests
 * and bytes it made, and the peak RSS of its renderer process (`VmHWM` of
 * every renderer under this process, whose only browser is this one; the
 * page's is the largest).
 */
async function inChromium(chromium, server, dir, name, probe) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.title === "ready");
    server.reset();
    const { ms, values } = await page.evaluate(
      async ({ dir, name, probe }) => {
        const { Atlas } = window.atlasWasm;
        const started = performance.now();
        const atlas = await Atlas.open(new URL(`./scale/${dir}/`, location.href).href, probe ? { tailProbeBytes: probe } : {});
        const read = await atlas.dataset(name).read("value");
        const ms = performance.now() - started;
        await atlas.close();
        return { ms, values: Array.from(read.data) };
      },
      { dir, name, probe },
    );
    check(values, name);
    const measured = { ms, requests: server.stats.requests, bytes: server.stats.bytes, rss: rendererPeak(process.pid) };
    await page.close();
    return measured;
  } finally {
    await browser.close();
  }
}

/** The largest `VmHWM` among the renderer processes under `pid`. */
function rendererPeak(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the 4th field, after the parenthesised command name.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {} // the process ended while we looked
  }
  let peak = 0;
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      try {
        if (readFileSync(`/proc/${c}/cmdline`, "utf8").includes("--type=renderer")) {
          peak = Math.max(peak, Number(/VmHWM:\s*(\d+)/.exec(readFileSync(`/proc/${c}/status`, "utf8"))[1]) * 1024);
        }
      } catch {}
      walk(c);
    }
  };
  walk(pid);
  if (peak === 0) throw new Error("found no renderer process under the browser");
  return peak;
}

/** Each field's median over the runs. */
function median(measured) {
  const mid = (key) => measured.map((m) => m[key]).sort((a, b) => a - b)[Math.floor(measured.length / 2)];
  return { ms: mid("ms"), requests: mid("requests"), bytes: mid("bytes"), rss: mid("rss") };
}
