/**
 * The HTTP source: byte ranges over `fetch`, checked at every step.
 *
 * - The tail comes from one suffix range (`bytes=-N`); `Content-Range` gives
 *   the object's size in the same answer. A suffix range is not
 *   CORS-safelisted, so a cross-origin browser sends one preflight for it;
 *   that buys a round trip per open (and `Access-Control-Max-Age` caches it).
 * - Every answer must be the 206 with the `Content-Range` asked for, with
 *   exactly that many bytes. Servers that ignore Range answer 200 with the
 *   whole object (`RangeNotSupported`), and a compressing proxy changes the
 *   bytes under the range (`ContentEncoded`): both would be wrong data, so
 *   both are errors.
 * - The first answer pins the object's ETag and size; later requests send
 *   `If-Match` (strong tags only: a weak tag never matches `If-Match`), and
 *   any answer about another version is `ObjectChanged`.
 * - Network errors and 5xx answers are retried with bounded backoff, then
 *   reported as `Network` or `HttpStatus` (with `status`); the requests in
 *   flight are capped (default 6). src/source/http.rs keeps the same rules.
 * - One request, headers and body, may take `timeout` ms (default 120 s,
 *   as the native source); past it the request is cancelled and the read
 *   is `Timeout`, not retried: a stalled server stays stalled.
 * - Requests go through `options.fetch`, else the runtime entry's transport
 *   (`useTransport`: node.js sets node-fetch.js), else `fetch`. Headers
 *   are plain records here: `Headers` alone costs a fresh Node process
 *   15–16 ms to load (benches/js/transport.mjs).
 */
import { AtlasError, aborted } from "./errors.js";
import { limiter } from "./limit.js";
import { lengthOf } from "./sources.js";

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;
const DEFAULT_TIMEOUT_MS = 120_000;
/** setTimeout's largest delay. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Header names are tokens (RFC 9110, 5.6.2). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

let transport = (url, init) => globalThis.fetch(url, init);

/** Called once by a runtime entry whose own transport beats `fetch`. */
export function useTransport(fetchLike) {
  transport = fetchLike;
}

/** The abort reason of a request that outlasted `timeout`. */
const TIMED_OUT = Symbol("timed out");

/** An answer worth asking for again (a dropped connection, a 5xx). */
class Retry {
  constructor(message, cause, status) {
    this.message = message;
    this.cause = cause;
    this.status = status;
  }
}

/**
 * HTTP sources for the files of one directory: `target` (a URL, absolute or
 * against the page's) gets a trailing slash, each path is resolved under it
 * with its query string (a token there serves every object), and all of them
 * share one cap on requests in flight. Undefined when `target` is not a URL.
 * @returns {((path: string) => ReturnType<typeof httpSource>) | undefined}
 */
export function directorySources(target, options = {}) {
  let base;
  try {
    base = new URL(String(target), globalThis.location?.href);
  } catch {
    return undefined;
  }
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  const shared = { ...options, limit: limiter(options.maxConcurrency ?? 6) };
  return (path) => {
    const url = new URL(path.split("/").map(encodeURIComponent).join("/"), base);
    url.search = base.search;
    return httpSource(url, shared);
  };
}

/**
 * @param {string | URL} url
 * @param {import("./index.d.ts").UrlOptions & {limit?: ReturnType<typeof limiter>}} [options]
 */
export function httpSource(url, options = {}) {
  const href = String(url);
  const fetchFn = options.fetch ?? transport;
  const retries = options.retries ?? 3;
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  if (!(timeout > 0 && timeout <= MAX_TIMEOUT_MS)) {
    throw new AtlasError(`timeout must be a number of milliseconds in (0, ${MAX_TIMEOUT_MS}], not ${timeout}`, "InvalidArgument");
  }
  const limit = options.limit ?? limiter(options.maxConcurrency ?? 6);
  const pinned = { size: undefined, etag: undefined };
  const extra = headerRecord(options.headers, href);

  const fail = (message, code, status) => new AtlasError(`GET ${href}: ${message}`, code, { status });
  const unsupported = (message) => fail(message, "RangeNotSupported");

  /** One request under its own deadline: `Timeout` when it passes. */
  async function attempt(range, signal, check, ifNoneMatch) {
    const deadline = new AbortController();
    const stop = () => deadline.abort(signal.reason);
    if (signal) signal.addEventListener("abort", stop, { once: true });
    const timer = setTimeout(() => deadline.abort(TIMED_OUT), timeout);
    try {
      return await attemptWithin(range, deadline.signal, check, ifNoneMatch);
    } catch (error) {
      if (deadline.signal.reason === TIMED_OUT && !signal?.aborted) {
        throw fail(`no complete answer to Range: ${range} within ${timeout} ms (option timeout)`, "Timeout");
      }
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
    }
  }

  async function attemptWithin(range, signal, check, ifNoneMatch) {
    const headers = { ...extra, range };
    if (pinned.etag && !pinned.etag.startsWith("W/")) headers["if-match"] = pinned.etag;
    if (ifNoneMatch) headers["if-none-match"] = ifNoneMatch;
    let response;
    try {
      response = await fetchFn(href, { headers, signal });
    } catch (error) {
      if (signal?.aborted) throw aborted(signal);
      throw new Retry(`GET ${href} failed: ${error?.message ?? error}`, error);
    }
    if (response.status >= 500) {
      await discard(response);
      throw new Retry(`GET ${href} (Range: ${range}) answered ${response.status}`, undefined, response.status);
    }
    let expected;
    try {
      expected = check(response);
    } catch (error) {
      await discard(response);
      throw error;
    }
    if (expected === 0) {
      await discard(response);
      return new Uint8Array(0);
    }
    const encoding = response.headers.get("Content-Encoding");
    if (encoding && encoding !== "identity") {
      await discard(response);
      throw fail(
        `the answer to Range: ${range} is compressed (Content-Encoding: ${encoding}), which breaks byte ranges; ` +
          "serve the collection without on-the-fly compression",
        "ContentEncoded",
      );
    }
    const etag = response.headers.get("ETag");
    if (pinned.etag && etag && etag !== pinned.etag) {
      await discard(response);
      throw fail(`ETag ${etag} is not the ${pinned.etag} it had when opened`, "ObjectChanged");
    }
    let bytes;
    try {
      // The body's chunks where the transport keeps them (node-fetch.js): the
      // core copies them in one by one. It stops reading past what was asked.
      bytes = response.chunks ? await response.chunks(expected) : new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      if (signal?.aborted) throw aborted(signal);
      throw new Retry(`GET ${href} broke off mid-body: ${error?.message ?? error}`, error);
    }
    const got = lengthOf(bytes);
    if (got !== expected) {
      throw unsupported(`answered ${got} bytes for Range: ${range}, expected ${expected}`);
    }
    pinned.etag ??= etag ?? undefined;
    return bytes;
  }

  /** Runs `attempt` under the cap, again after each retryable failure. */
  function request(range, signal, check, ifNoneMatch) {
    return limit(async () => {
      for (let tries = 0; ; tries++) {
        if (signal?.aborted) throw aborted(signal);
        try {
          return await attempt(range, signal, check, ifNoneMatch);
        } catch (error) {
          if (!(error instanceof Retry)) throw error;
          if (tries >= retries) {
            const code = error.status === undefined ? "Network" : "HttpStatus";
            throw new AtlasError(`${error.message} (gave up after ${tries + 1} attempts)`, code, {
              cause: error.cause,
              status: error.status,
            });
          }
          await sleep(Math.min(2000, 100 * 2 ** tries), signal);
        }
      }
    });
  }

  /** The `Content-Range` of a 206, as numbers. */
  function contentRange(response, range) {
    const header = response.headers.get("Content-Range");
    const match = header && CONTENT_RANGE.exec(header);
    if (/^multipart\/byteranges/i.test(response.headers.get("Content-Type") ?? "")) {
      throw unsupported(`answered Range: ${range} with multipart/byteranges; one range was asked, one part is wanted`);
    }
    if (!match) {
      throw unsupported(
        `a 206 for Range: ${range} came with Content-Range ${header ?? "missing"}; a server on another origin ` +
          "must send Access-Control-Expose-Headers: Content-Range, Content-Length, ETag",
      );
    }
    const [start, end, size] = match.slice(1).map(Number);
    if (pinned.size !== undefined && size !== pinned.size) {
      throw fail(`the object is ${size} bytes now, ${pinned.size} when opened`, "ObjectChanged");
    }
    return { start, end, size };
  }

  function missing(response) {
    if (response.status === 404 || response.status === 410) {
      // Present when opened and gone now: replaced, not merely missing.
      return fail(`answered ${response.status}`, pinned.size === undefined ? "NotFound" : "ObjectChanged");
    }
    if (response.status === 412) return fail("answered 412: the object changed since it was opened", "ObjectChanged");
    return undefined;
  }

  /**
   * The last `length` bytes and the size. With `known` (`{etag, size}` of a
   * copy kept by `persist`), the request carries `If-None-Match`, and a 304
   * answers `undefined`: the kept copy is current, and is pinned as if read.
   */
  async function readTail(length, signal, known) {
    let size;
    let current = false;
    const range = `bytes=-${length}`;
    const bytes = await request(range, signal, (response) => {
      const problem = missing(response);
      if (problem) throw problem;
      if (known && response.status === 304) {
        current = true;
        return 0;
      }
      if (response.status === 416 && /^bytes \*\/0$/.test(response.headers.get("Content-Range") ?? "")) {
        size = 0; // an empty object has no suffix to give
        return 0;
      }
      if (response.status === 200) {
        // Some CDNs answer a small object whole. When it fits the suffix asked
        // for, the whole object is the tail; a larger one is refused unread.
        const whole = Number(response.headers.get("Content-Length"));
        if (response.headers.has("Content-Length") && whole <= length) {
          size = whole;
          return whole;
        }
        throw unsupported(`ignored Range: ${range} and answered 200 with the whole object; serve it from a server that supports HTTP range requests`);
      }
      if (response.status === 416) throw fail(`answered 416 to Range: ${range}`, "HttpStatus", 416);
      if (response.status !== 206) throw fail(`answered ${response.status} to Range: ${range}`, "HttpStatus", response.status);
      const got = contentRange(response, range);
      const want = Math.min(length, got.size);
      if (got.end !== got.size - 1 || got.end - got.start + 1 !== want) {
        throw unsupported(`answered Content-Range bytes ${got.start}-${got.end}/${got.size} to Range: ${range}`);
      }
      size = got.size;
      return want;
    }, known?.etag);
    if (current) {
      pinned.etag ??= known.etag;
      pinned.size ??= known.size;
      return undefined;
    }
    pinned.size ??= size;
    return { bytes, size };
  }

  async function read(offset, length, signal) {
    if (pinned.size !== undefined && offset + length > pinned.size) {
      throw fail(`bytes ${offset}..${offset + length} are outside the object of ${pinned.size} bytes`, "OutOfBounds");
    }
    if (length === 0) return new Uint8Array(0);
    const last = offset + length - 1;
    const range = `bytes=${offset}-${last}`;
    return request(range, signal, (response) => {
      const problem = missing(response);
      if (problem) throw problem;
      if (response.status === 200) {
        throw unsupported(`ignored Range: ${range} and answered 200 with the whole object; serve it from a server that supports HTTP range requests`);
      }
      if (response.status === 416) {
        // `bytes */N` names the size: a read past it, or an object that shrank.
        const total = /^bytes \*\/(\d+)$/.exec(response.headers.get("Content-Range") ?? "");
        const shrank = pinned.size !== undefined && last < pinned.size;
        if (shrank) throw fail(`answered 416 to Range: ${range}`, "ObjectChanged");
        if (total) throw fail(`Range: ${range} is outside the object of ${total[1]} bytes`, "OutOfBounds");
        throw fail(`answered 416 to Range: ${range}`, "HttpStatus", 416);
      }
      if (response.status !== 206) throw fail(`answered ${response.status} to Range: ${range}`, "HttpStatus", response.status);
      const got = contentRange(response, range);
      if (got.start === offset && got.end === got.size - 1 && got.end < last) {
        // A server clamps a range that runs past the end (RFC 9110, 14.1.2).
        throw fail(`Range: ${range} runs past the end of the object of ${got.size} bytes`, "OutOfBounds");
      }
      if (got.start !== offset || got.end !== last) {
        throw unsupported(`answered Content-Range bytes ${got.start}-${got.end}/${got.size} to Range: ${range}`);
      }
      pinned.size ??= got.size;
      return length;
    });
  }

  return {
    describe: () => href,
    readTail: (length, signal) => readTail(length, signal),
    read,
    // What `persist` (persist.js) keys and revalidates kept copies by.
    persistable: { key: href, etag: () => pinned.etag, revalidateTail: readTail },
  };
}

/** `headers` (a `Headers`, pairs or a record) as a record keyed by lower-case name. */
function headerRecord(headers, href) {
  const out = Object.create(null); // a header may be named __proto__
  if (headers == null) return out;
  const invalid = (why) => new AtlasError(`the headers for ${href} are invalid: ${why}`, "InvalidArgument");
  if (typeof headers !== "object") throw invalid("give a Headers, a record or [name, value] pairs");
  const pairs = typeof headers[Symbol.iterator] === "function" ? headers : Object.entries(headers);
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) throw invalid("each pair must be [name, value]");
    const [name, raw] = pair;
    const value = String(raw).trim();
    if (typeof name !== "string" || !TOKEN.test(name)) throw invalid(`${JSON.stringify(name)} is not a header name`);
    // What HTTP/1.1 can carry in a value: tab, visible ASCII, space, and bytes 0x80–0xFF.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) {
      throw invalid(`the value of ${name} holds a line break, a control character or a character past U+00FF`);
    }
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  }
  return out;
}

async function discard(response) {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to do: the body is unwanted either way.
  }
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(signal));
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      reject(aborted(signal));
    }
    signal?.addEventListener("abort", stop, { once: true });
  });
}
