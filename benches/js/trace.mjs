// A timeline of one catalogue (W1), W2 or W3 read in a fresh Node process: when each range
// request leaves, when its body has been taken in, and when the answer is
// there, over the benchmark's range server with injected latency. W3 is
// then read again in the same process (the block decoded a second time,
// `cacheBytes: 0`), to tell a first call's cost from a warm one.
//
//   node benches/js/trace.mjs WORKLOAD_DIR w1|w2|w3 [--latency 20] [--workers N]
//
// Each line: ms since the open started, then the event. Profile the same
// read with `node --cpu-prof benches/js/trace.mjs ...` (the profile is the
// child's: run it with --child as the parent prints). js/dist must be built,
// or ATLAS_WASM_ENTRY set.
import { execFile } from "node:child_process";
import http from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);

if (argv[0] === "--child") await trace(argv[1], argv[2], argv[3], argv[4]);
else await serve();

async function serve() {
  const { startServer } = await import("./server.mjs");
  const [dir, workload] = argv;
  const server = await startServer({ root: dir, latencyMs: Number(option("latency", 20)) });
  // The server reads a file into memory at its first request: do that before the clock.
  await (await fetch(`${server.url}/atlas/data.atlas`, { headers: { range: "bytes=0-0" } })).arrayBuffer();
  const args = [fileURLToPath(import.meta.url), "--child", dir, workload, server.url, option("workers", "default")];
  console.log(`# node ${args.join(" ")}`);
  // Not execFileSync: the server answers from this process's event loop.
  const { stdout } = await promisify(execFile)(process.execPath, args);
  process.stdout.write(stdout);
  await server.close();
}

async function trace(dir, workload, base, workers) {
  const want = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
  const entry = process.env.ATLAS_WASM_ENTRY ?? fileURLToPath(new URL("../../js/dist/node.js", import.meta.url));
  const { Atlas } = await import(entry.startsWith("file:") ? entry : pathToFileURL(entry).href);
  // Compile the module before the clock starts, as reader.mjs does.
  await Atlas.open({ data: Atlas.fromBytes(new Uint8Array(0)) }).catch(() => {});
  const started = performance.now();
  const log = (event) => console.log(`${(performance.now() - started).toFixed(1).padStart(7)}  ${event}`);
  // The package sends its requests through http.get (js/src/node-fetch.js).
  const send = http.get;
  http.get = function (url, options, onResponse) {
    const range = options.headers.range;
    log(`sent  ${String(url).split("/").pop()} ${range}`);
    return send.call(this, url, options, (res) => {
      res.on("end", () => log(`in    ${range}`));
      onResponse(res);
    });
  };
  const options = { cacheBytes: 0, ...(workers === "default" ? {} : { decodeWorkers: Number(workers) }) };
  const atlas = await Atlas.open(`${base}/atlas/`, options);
  log("opened");
  if (workload === "w1") {
    atlas.listDatasets();
    await atlas.attributesByDataset(null, want.attribute);
    log("catalogue");
  } else if (workload === "w2") {
    const { data } = await atlas.readAcross(want.array);
    log(`answer: ${data.length} values`);
  } else {
    const window = { start: want.w3_start, shape: want.w3_shape };
    await atlas.dataset(want.w3_dataset).read(want.array, window);
    log("answer");
    const again = performance.now();
    await atlas.dataset(want.w3_dataset).read(want.array, window);
    log(`answer again (fetched and decoded again, ${(performance.now() - again).toFixed(1)} ms)`);
  }
  atlas.close();
}
