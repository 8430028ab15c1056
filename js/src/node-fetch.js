/**
 * The HTTP transport of the Node entries: the part of `fetch` that
 * `httpSource` (http.js) uses, over `node:http` and `node:https`.
 *
 * Why not undici's `fetch`: undici loads lazily, and a fresh Node 20
 * process's first 600 KB range took 33–40 ms over `fetch` against 8–10 ms
 * over `http.request` (benches/js/transport.mjs). The checks stay in http.js; this
 * only moves bytes. It asks for `Accept-Encoding: identity` (undici asks for
 * gzip, and a server that obliges breaks every byte range), follows
 * redirects as `fetch` does (at most 20, credentials dropped across
 * origins), and honours the `AbortSignal`, mid-body too. In place of
 * `arrayBuffer()` an answer has `chunks()`, the body as it arrived, which
 * http.js hands to the core unjoined (sources.js, `Bytes`).
 */
import http from "node:http";
import https from "node:https";

const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * @param {string | URL} url
 * @param {{headers?: Record<string, string>, signal?: AbortSignal}} [init]
 *   headers as a record (http.js never builds a `Headers`: see there)
 */
export async function nodeFetch(url, init = {}) {
  const headers = Object.create(null);
  for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
  headers["accept-encoding"] ??= "identity";
  let target = new URL(String(url));
  for (let hops = 0; ; hops++) {
    const response = await get(target, headers, init.signal);
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return response;
    response.body.cancel();
    if (hops === MAX_REDIRECTS) throw new TypeError(`GET ${url}: more than ${MAX_REDIRECTS} redirects`);
    const next = new URL(location, target);
    if (next.origin !== target.origin) delete headers.authorization;
    target = next;
  }
}

/** One GET: resolves at the headers, the body read on demand. */
function get(url, headers, signal) {
  const client = { "http:": http, "https:": https }[url.protocol];
  if (!client) return Promise.reject(new TypeError(`GET ${url}: only http: and https: URLs are fetched`));
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const request = client.get(url, { headers }, (message) => resolve(responseOf(message)));
    // Destroying the request ends its body too, mid-read; done by hand
    // rather than through the `signal` option, which Bun and Deno need not share.
    const stop = () => request.destroy(new Error("the request was aborted"));
    signal?.addEventListener("abort", stop, { once: true });
    request.on("close", () => signal?.removeEventListener("abort", stop));
    request.on("error", reject);
  });
}

/** The `Response` members http.js reads, `chunks()` for `arrayBuffer()`. */
function responseOf(message) {
  // An error after the caller let go of the body must not be an uncaught one.
  message.on("error", () => {});
  return {
    status: message.statusCode,
    headers: {
      get: (name) => {
        const value = message.headers[name.toLowerCase()];
        return value === undefined ? null : [value].flat().join(", ");
      },
      has: (name) => message.headers[name.toLowerCase()] !== undefined,
    },
    body: { cancel: async () => void message.destroy() },
    // The body as it came, for http.js to hand on unjoined; past `limit`
    // bytes it stops reading, and answers what it has.
    chunks: (limit) => chunksOf(message, limit),
  };
}

/** The body, as the chunks it arrived in: whole, or cut off once past `limit` bytes. */
function chunksOf(message, limit) {
  return new Promise((resolve, reject) => {
    if (message.destroyed) return reject(new Error("the body was let go before it was read"));
    const chunks = [];
    let length = 0;
    message.on("data", (chunk) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length > limit) {
        resolve(chunks); // longer than asked: the caller says so, unread further
        message.destroy();
      }
    });
    message.on("error", reject);
    // After "end" this settles nothing; a runtime that closes first (not
    // Node) is still judged by whether the whole message came.
    message.on("close", () =>
      message.complete ? resolve(chunks) : reject(new Error("the connection closed before the body ended")),
    );
    message.on("end", () => resolve(chunks));
  });
}
