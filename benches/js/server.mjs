// The benchmark's HTTP range server: serves a directory from memory on
// 127.0.0.1, holds every request for `latencyMs` before answering, answers
// at most `maxInFlight` requests at once (the rest queue, as a browser or a
// Worker queues past six connections), and counts requests and body bytes
// (of the paths `counts` accepts: all, unless told).
import { readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { join, normalize } from "node:path";

// The page and the package, for the browser run (browser.mjs).
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
const typeOf = (path) => {
  const type = TYPES[/\.[a-z]+$/.exec(path)?.[0]];
  return type ? { "Content-Type": type } : {};
};

export async function startServer({ root, latencyMs = 0, maxInFlight = 6, counts = () => true }) {
  const files = new Map();
  const load = (path) => {
    if (!files.has(path)) {
      const file = join(root, normalize(path).replace(/^(\.\.[/\\])+/, ""));
      let bytes = null;
      try {
        if (statSync(file).isFile()) bytes = readFileSync(file);
      } catch {}
      files.set(path, bytes);
    }
    return files.get(path);
  };
  const stats = { requests: 0, bytes: 0, maxActive: 0, log: [] };
  let active = 0;
  const waiting = [];
  const acquire = () =>
    active < maxInFlight ? (active++, Promise.resolve()) : new Promise((resolve) => waiting.push(resolve));
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  const lastModified = new Date(0).toUTCString();

  const server = createServer(async (req, res) => {
    await acquire();
    stats.maxActive = Math.max(stats.maxActive, active);
    let released = false;
    const done = () => {
      if (!released) (released = true), release();
    };
    res.on("close", done);
    if (server.latencyMs > 0) await new Promise((r) => setTimeout(r, server.latencyMs));
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const counted = counts(path);
    if (counted) stats.requests++;
    stats.log.push(`${req.method} ${path} ${req.headers.range ?? ""}`);
    const bytes = load(path);
    if (!bytes) {
      res.writeHead(404).end();
      return;
    }
    const size = bytes.length;
    const headers = { "Accept-Ranges": "bytes", ETag: `"${size}"`, "Last-Modified": lastModified, ...typeOf(path) };
    if (req.method === "HEAD") {
      res.writeHead(200, { ...headers, "Content-Length": size }).end();
      return;
    }
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (!range) {
      if (counted) stats.bytes += size;
      res.writeHead(200, { ...headers, "Content-Length": size }).end(bytes);
      return;
    }
    let [start, end] = [range[1], range[2]];
    let from, to;
    if (start === "") [from, to] = [Math.max(0, size - Number(end)), size - 1];
    else [from, to] = [Number(start), end === "" ? size - 1 : Math.min(Number(end), size - 1)];
    if (from > to || from >= size) {
      res.writeHead(416, { "Content-Range": `bytes */${size}` }).end();
      return;
    }
    if (counted) stats.bytes += to - from + 1;
    res
      .writeHead(206, { ...headers, "Content-Length": to - from + 1, "Content-Range": `bytes ${from}-${to}/${size}` })
      .end(bytes.subarray(from, to + 1));
  });
  server.latencyMs = latencyMs;
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stats,
    setLatency: (ms) => (server.latencyMs = ms),
    reset: () => Object.assign(stats, { requests: 0, bytes: 0, maxActive: 0, log: [] }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
