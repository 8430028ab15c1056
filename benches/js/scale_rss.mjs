// Peak RSS of a Node process that opens a collection over HTTP and reads one
// dataset, with default options, at 1,000 and at 1,000,000 datasets: the
// issue's target is a million at ≤ 1.5× a thousand plus the collection
// footer. Each measurement is a fresh process (the range server runs in
// this one, so its memory is not counted); medians of --runs.
//
//   cargo bench --features writer --bench scale     # writes target/tmp/scale-v1/{1000,…,1000000}
//   node benches/js/scale_rss.mjs [--runs 3] [--sizes 1000,1000000]
//
// js/dist must be built (bash js/scripts/build.sh), or ATLAS_WASM_ENTRY set.
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const argv = process.argv.slice(2);
const MiB = 2 ** 20;
const entry = process.env.ATLAS_WASM_ENTRY ?? new URL("../../js/dist/node.js", import.meta.url).href;

if (argv[0] === "--child") await child(argv[1], argv[2]);
else await compare();

async function child(url, name) {
  const { Atlas } = await import(entry);
  const atlas = await Atlas.open(url);
  const read = await atlas.dataset(name).read("value");
  if (read.data.length !== 24) throw new Error(`read ${read.data.length} values`);
  atlas.close();
  // VmHWM, not getrusage's maxrss: Linux carries maxrss across exec from
  // the forking parent, whose range server holds file pages.
  const kib = Number(/VmHWM:\s*(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
  console.log(JSON.stringify({ rss: kib * 1024 }));
}

async function compare() {
  const { startServer } = await import("./server.mjs");
  const option = (flag, fallback) => (argv.includes(`--${flag}`) ? argv[argv.indexOf(`--${flag}`) + 1] : fallback);
  const runs = Number(option("runs", 3));
  const sizes = option("sizes", "1000,1000000").split(",").map(Number);
  const root = fileURLToPath(new URL("../../target/tmp/scale-v1/", import.meta.url));
  const server = await startServer({ root });
  const rows = [];
  for (const n of sizes) {
    const name = `d${String(Math.floor(n / 2) + 1).padStart(7, "0")}`;
    const got = [];
    for (let i = 0; i < runs; i++) {
      const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), "--child", `${server.url}/${n}/`, name]);
      got.push(JSON.parse(stdout).rss);
    }
    got.sort((a, b) => a - b);
    rows.push({ n, rss: got[Math.floor(got.length / 2)], container: statSync(`${root}/${n}/data.atlas`).size });
  }
  await server.close();
  console.log("| datasets | container | Node peak RSS (median) | ratio to the first row |");
  console.log("|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(`| ${r.n.toLocaleString("en")} | ${(r.container / MiB).toFixed(1)} MiB | ${(r.rss / MiB).toFixed(1)} MiB | ${(r.rss / rows[0].rss).toFixed(2)}× |`);
  }
}
