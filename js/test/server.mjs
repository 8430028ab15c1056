/**
 * A small static file server that honours HTTP Range, for tests and for
 * serving the dashboard: single ranges (`a-b`, `a-`, `-n`), 206/416 with the
 * right Content-Range, strong ETags, If-Match (412) and If-None-Match (304), HEAD, CORS with
 * Expose-Headers, and preflights.
 *
 * Hostile behaviour is chosen per request by a path prefix, so a browser can
 * ask for it too: `/~FAULT/…` for each fault of the table the native fault
 * server serves too (tests/http_faults.json, `faults`: ignore-range, 416,
 * gzip, short, stall, redirect-302, …; test/conformance.test.mjs runs its
 * cases and holds `FAULTS` below equal to it), and two of this server's own:
 *
 *     /~slow/…          waits 300 ms before answering
 *     /~no-expose/…     no Access-Control-Expose-Headers (a browser then
 *                       hides Content-Range and ETag from the page)
 *
 * Any other `/~NAME/` prefix is answered 501.
 *
 * Every request is logged (`server.log`), and `server.maxActive` is the most
 * requests ever in flight at once.
 *
 * CLI: node server.mjs --root DIR [--port 8080]
 */
import { createServer } from "node:http";
import { open, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};
/** The faults of tests/http_faults.json, as served here (`ok` changes nothing). */
export const FAULTS = Object.freeze([
  ...["ok", "ignore-range", "416", "416-bare", "gzip", "br", "wrong-range", "multipart", "short", "long"],
  ...["weak-etag", "ignore-if-match", "etag-change", "flaky", "down", "reset", "stall"],
  ...["redirect-302", "redirect-307"],
]);
const KNOBS = new Set([...FAULTS, "slow", "no-expose"]);

/**
 * @param {{root: string, port?: number, host?: string}} options
 */
export async function startServer({ root, port = 0, host = "127.0.0.1" }) {
  const base = resolve(root);
  const seen = new Map(); // path -> requests so far, for the per-path knobs
  const state = { log: [], active: 0, maxActive: 0 };

  const server = createServer(async (req, res) => {
    state.active++;
    state.maxActive = Math.max(state.maxActive, state.active);
    const entry = { method: req.method, url: req.url, range: req.headers.range, ifMatch: req.headers["if-match"], ifNoneMatch: req.headers["if-none-match"], authorization: req.headers.authorization, status: 0, bytes: 0 };
    state.log.push(entry);
    res.on("close", () => state.active--);
    try {
      await handle(req, res, entry);
    } catch (error) {
      entry.status = 500;
      if (!res.headersSent) res.writeHead(500, corsExposed({ "Content-Type": "text/plain" }));
      res.end(String(error?.message ?? error));
    }
  });

  async function handle(req, res, entry) {
    let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const knobs = new Set();
    for (let m; (m = /^\/~([a-z0-9-]+)(\/.*)$/.exec(path)); path = m[2]) {
      if (!KNOBS.has(m[1])) return answer(501, corsExposed({}));
      knobs.add(m[1]);
    }
    const count = (seen.get(req.url) ?? 0) + 1;
    seen.set(req.url, count);

    if (req.method === "OPTIONS") {
      res.writeHead(204, corsExposed({
        "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
        "Access-Control-Allow-Headers": "Range, If-Match, If-None-Match, Authorization",
        "Access-Control-Max-Age": "600",
      }));
      return res.end();
    }
    const cors = knobs.has("no-expose") ? corsHidden : corsExposed;
    if (req.method !== "GET" && req.method !== "HEAD") return answer(405);
    if (knobs.has("slow")) await new Promise((r) => setTimeout(r, 300));
    if (knobs.has("flaky") && count === 1) return answer(500);
    if (knobs.has("down")) return answer(503);
    for (const code of [302, 307]) {
      if (knobs.has(`redirect-${code}`)) {
        const to = req.url.replace(`/~redirect-${code}`, "");
        return answer(code, cors({ Location: to }));
      }
    }

    let file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) return answer(403);
    let info = await stat(file).catch(() => undefined);
    if (info?.isDirectory()) {
      file = join(file, "index.html");
      info = await stat(file).catch(() => undefined);
    }
    if (!info?.isFile()) return answer(404);

    const size = info.size;
    // The inode tells apart a file replaced by a rename within the same millisecond.
    let etag = `"${info.ino.toString(16)}-${size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    if (knobs.has("etag-change")) etag = count === 1 ? '"v1"' : '"v2"';
    if (knobs.has("weak-etag")) etag = `W/${etag}`;
    const headers = cors({ "Content-Type": TYPES[extname(file)] ?? "application/octet-stream", ETag: etag, "Accept-Ranges": "bytes" });
    const ifMatch = req.headers["if-match"];
    const honoursIfMatch = !knobs.has("ignore-if-match");
    if (honoursIfMatch && ifMatch && ifMatch !== "*" && !ifMatch.split(/\s*,\s*/).includes(etag)) return answer(412, headers);
    // If-None-Match compares weakly and goes before Range (RFC 9110, 13.2.2).
    const weak = (tag) => tag.replace(/^W\//, "");
    const ifNoneMatch = req.headers["if-none-match"];
    if (ifNoneMatch && ifNoneMatch.split(/\s*,\s*/).some((t) => t === "*" || weak(t) === weak(etag))) return answer(304, headers);

    let start = 0;
    let end = size - 1;
    let status = 200;
    const range = req.headers.range;
    if (range && !knobs.has("ignore-range")) {
      const parsed = parseRange(range, size);
      if (knobs.has("416-bare")) return answer(416, headers);
      if (knobs.has("416") || parsed === "unsatisfiable") {
        return answer(416, { ...headers, "Content-Range": `bytes */${size}` });
      }
      if (parsed) {
        [start, end] = parsed;
        status = 206;
        headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
      }
    }
    let body = await readSlice(file, start, end - start + 1);
    if (knobs.has("gzip")) {
      body = gzipSync(body);
      headers["Content-Encoding"] = "gzip";
    }
    if (knobs.has("br")) {
      body = brotliCompressSync(body);
      headers["Content-Encoding"] = "br";
    }
    if (status === 206) body = misshape(knobs, body, headers, { start, end, size });
    headers["Content-Length"] = String(body.length);
    entry.status = status;
    entry.bytes = req.method === "HEAD" ? 0 : body.length;
    res.writeHead(status, headers);
    if (req.method !== "HEAD" && (knobs.has("reset") || knobs.has("stall"))) {
      // Half the body, then a broken connection or silence.
      res.write(body.subarray(0, body.length >> 1));
      if (knobs.has("reset")) setTimeout(() => res.destroy(), 20);
      return;
    }
    res.end(req.method === "HEAD" ? undefined : body);

    function answer(code, extra = cors({})) {
      entry.status = code;
      res.writeHead(code, { ...extra, "Content-Type": "text/plain", "Content-Length": "0" });
      res.end();
    }
  }

  await new Promise((done) => server.listen(port, host, done));
  const address = server.address();
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    get log() {
      return state.log;
    },
    get maxActive() {
      return state.maxActive;
    },
    /** Forgets the log and the in-flight peak (not the per-path counts of the knobs). */
    reset() {
      state.log = [];
      state.maxActive = state.active;
    },
    close() {
      server.closeAllConnections?.();
      return new Promise((done) => server.close(done));
    },
  };
}

function corsExposed(headers) {
  return {
    ...headers,
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "Content-Range, Content-Length, ETag",
  };
}

/** CORS that lets the page read the body but none of the range headers. */
function corsHidden(headers) {
  return { ...headers, "Access-Control-Allow-Origin": "*" };
}

/** The 206 body (and headers) a misbehaving server sends instead. */
function misshape(knobs, body, headers, { start, end, size }) {
  if (knobs.has("short")) return body.subarray(1);
  if (knobs.has("long")) return Buffer.concat([body, Buffer.from([0])]);
  if (knobs.has("wrong-range")) headers["Content-Range"] = `bytes ${start + 1}-${end + 1}/${size}`;
  if (knobs.has("multipart")) {
    const head = `--XX\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes ${start}-${end}/${size}\r\n\r\n`;
    headers["Content-Type"] = "multipart/byteranges; boundary=XX";
    delete headers["Content-Range"];
    return Buffer.concat([Buffer.from(head), body, Buffer.from("\r\n--XX--\r\n")]);
  }
  return body;
}

/** `[start, end]` (inclusive), `"unsatisfiable"`, or undefined to ignore the header. */
function parseRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined; // multiple or malformed ranges: serve whole
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return [start, end];
}

async function readSlice(file, start, length) {
  const handle = await open(file);
  try {
    const buffer = Buffer.alloc(Math.max(0, length));
    if (length > 0) await handle.read(buffer, 0, length, start);
    return buffer;
  } finally {
    await handle.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const server = await startServer({ root: arg("root", "."), port: Number(arg("port", 8080)) });
  console.log(`serving ${resolve(arg("root", "."))} at ${server.url}`);
}
