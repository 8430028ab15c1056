// What a fresh Node process pays for its first HTTP requests, by transport:
// Node's `fetch` (undici) against `node:http` (what the package's Node
// entries use, js/src/node-fetch.js), two 600 KB ranges each from a local
// server, and what building one `Headers` costs. Each measurement in its
// own process, as a reader's first open would be.
//
//   node benches/js/transport.mjs [--runs 5]
import { execFile } from "node:child_process";
import { createServer, get } from "node:http";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const argv = process.argv.slice(2);
const SIZE = 600_000;

if (argv[0] === "--child") await measure(argv[1], argv[2]);
else await compare(Number(argv[argv.indexOf("--runs") + 1] || 5));

async function compare(runs) {
  const body = Buffer.alloc(SIZE, 7);
  const server = createServer((req, res) => {
    res.writeHead(206, { "Content-Length": SIZE, "Content-Range": `bytes 0-${SIZE - 1}/${SIZE}` });
    res.end(body);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${server.address().port}/x`;
  const modes = ["fetch", "node:http", "new Headers()"];
  const results = new Map(modes.map((m) => [m, []]));
  for (let run = 0; run < runs; run++) {
    for (const mode of modes) {
      // Not execFileSync: the server answers from this process's event loop.
      const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), "--child", mode, url]);
      results.get(mode).push(JSON.parse(stdout));
    }
  }
  server.close();
  const range = (values) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
  console.log(`${runs} fresh processes each, ms (min–max)\n`);
  console.log("| transport | first request | second request |");
  console.log("|---|---:|---:|");
  for (const mode of modes) {
    const all = results.get(mode);
    console.log(`| ${mode} | ${range(all.map((r) => r.first))} | ${all[0].second === null ? "–" : range(all.map((r) => r.second))} |`);
  }
}

async function measure(mode, url) {
  const viaHttp = () =>
    new Promise((ok, fail) =>
      get(url, { headers: { range: `bytes=0-${SIZE - 1}` } }, (res) => {
        const parts = [];
        res.on("data", (chunk) => parts.push(chunk));
        res.on("end", () => ok(Buffer.concat(parts).length));
        res.on("error", fail);
      }).on("error", fail),
    );
  const viaFetch = async () => (await (await fetch(url, { headers: { range: `bytes=0-${SIZE - 1}` } })).arrayBuffer()).byteLength;
  const once = { fetch: viaFetch, "node:http": viaHttp, "new Headers()": async () => new Headers({ range: "bytes=0-1" }) }[mode];
  const timed = async () => {
    const started = performance.now();
    const got = await once();
    if (typeof got === "number" && got !== SIZE) throw new Error(`${mode} read ${got} bytes`);
    return performance.now() - started;
  };
  const first = await timed();
  const second = mode === "new Headers()" ? null : await timed();
  console.log(JSON.stringify({ first, second }));
}
