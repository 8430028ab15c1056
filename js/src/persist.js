/**
 * `persist`: compressed bytes kept across page loads (docs/js-api.md,
 * "Keeping blocks across page loads").
 *
 * It lives at the byte-range seam, around the HTTP and R2 sources: the core
 * asks for ranges and never learns where they came from, so the same reads
 * plan the same ranges and find them again. What is kept is whatever the
 * core read: the tail of `data.atlas` (footer), segment footers, compressed
 * blocks (coalesced as they were requested), and the mask.
 *
 * - Keys: the object (URL, or `r2:` and the key), its ETag, and the byte
 *   range. Nothing is kept for an object served without an ETag.
 * - A re-open sends one request per object: the tail read carries
 *   `If-None-Match` with the ETag kept. 304: the kept tail is the answer,
 *   the ETag is pinned, and every later read is looked up first. Another
 *   answer (a new ETag): the old version's entries are dropped and the new
 *   one is read and kept as on a first load.
 * - A range is served when kept entries of the same version cover it (one
 *   entry, or several side by side); otherwise it is fetched whole and kept.
 * - Eviction: least recently used first, once the entries pass the cap
 *   (`persist: {bytes}`, 256 MiB by default). The index (object versions,
 *   entries, last use) is one more entry, written after changes.
 *
 * Where: the Cache API (`caches.open("atlas-wasm")` in browsers,
 * `caches.default` in Workers), as synthetic 200 responses (the Cache API
 * refuses 206); IndexedDB where the Cache API is missing or refused; in Node
 * (neither exists) the process's memory, shared by every handle.
 */
import { expect } from "./errors.js";
import { joined, lengthOf } from "./sources.js";

const DEFAULT_BYTES = 256 * 1024 * 1024;
/** Entries are keyed as URLs (the Cache API wants http(s)); this host is never contacted. */
const ROOT = "https://atlas-wasm.invalid/v1/";
const INDEX = `${ROOT}index`;
/** How long a Worker's cache keeps an entry (the Workers cache honours Cache-Control). */
const MAX_AGE = 30 * 24 * 3600;
/** The index is written this long after the last change, so a burst of reads costs one write. */
const SAVE_AFTER_MS = 100;

/** `{bytes}` for a `persist` option, or undefined when it is off. */
export function persistOptions(value) {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { bytes: DEFAULT_BYTES };
  const bytes = value?.bytes ?? DEFAULT_BYTES;
  expect(typeof value === "object" && Number.isSafeInteger(bytes) && bytes > 0, "persist must be true, false, or {bytes: a whole number > 0}");
  return { bytes };
}

let shared; // one kept-bytes cache per page (or isolate, or process)

/** The page's kept-bytes cache, its cap set to `bytes`. */
export function keptBytes(bytes) {
  shared ??= openBackend().then((backend) => new Kept(backend));
  return shared.then(async (kept) => {
    await kept.ready;
    kept.setCap(bytes);
    return kept;
  });
}

/** Forgets the page's cache (tests use it to open a fresh one, as a new page would). */
export function forgetKeptBytes() {
  shared = undefined;
}

/** The Cache API, else IndexedDB, else memory: the first that opens. */
async function openBackend() {
  const caches = globalThis.caches;
  try {
    if (caches?.default) return cacheBackend(caches.default); // workerd
    if (typeof caches?.open === "function") return cacheBackend(await caches.open("atlas-wasm"));
  } catch {
    // Refused (some private modes): try the next.
  }
  try {
    if (globalThis.indexedDB) return await idbBackend(globalThis.indexedDB);
  } catch {
    // Refused too: memory.
  }
  return memoryBackend();
}

function cacheBackend(cache) {
  return {
    kind: "cache",
    async get(url) {
      const response = await cache.match(url);
      return response ? new Uint8Array(await response.arrayBuffer()) : undefined;
    },
    put: (url, bytes) =>
      cache.put(
        url,
        new Response(bytes, { status: 200, headers: { "Content-Type": "application/octet-stream", "Cache-Control": `max-age=${MAX_AGE}` } }),
      ),
    delete: (url) => cache.delete(url),
    // workerd's cache cannot list its keys.
    keys: typeof cache.keys === "function" ? async () => (await cache.keys()).map((r) => r.url) : undefined,
  };
}

async function idbBackend(indexedDB) {
  const db = await done(
    (() => {
      const opening = indexedDB.open("atlas-wasm", 1);
      opening.onupgradeneeded = () => opening.result.createObjectStore("entries");
      return opening;
    })(),
  );
  const store = (mode) => db.transaction("entries", mode).objectStore("entries");
  return {
    kind: "indexeddb",
    get: async (url) => {
      const value = await done(store("readonly").get(url));
      return value === undefined ? undefined : new Uint8Array(value);
    },
    put: (url, bytes) => done(store("readwrite").put(bytes.slice().buffer, url)),
    delete: (url) => done(store("readwrite").delete(url)),
    keys: async () => (await done(store("readonly").getAllKeys())).map(String),
  };
}

/** An IndexedDB request as a promise. */
function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function memoryBackend() {
  const entries = new Map();
  // No copies here: `keep` hands over a copy of its own, and `lookup` copies
  // out of what it gets.
  return {
    kind: "memory",
    get: async (url) => entries.get(url),
    put: async (url, bytes) => void entries.set(url, bytes),
    delete: async (url) => void entries.delete(url),
    keys: async () => [...entries.keys()],
  };
}

const urlOf = (key, etag, start, end) => `${ROOT}${encodeURIComponent(key)}/${encodeURIComponent(etag)}/${start}-${end}`;

/** The index over a backend: object versions, entries, last use, the cap. */
class Kept {
  #backend;
  #cap = DEFAULT_BYTES;
  #objects = new Map(); // key -> {etag, size}
  #entries = new Map(); // url -> {key, etag, start, end, used, listed}
  #held = 0;
  #clock = 0;
  #writing = new Map(); // url -> bytes not yet in the backend
  #pending = new Set(); // writes and deletions under way
  #saving; // the index write scheduled, if any

  constructor(backend) {
    this.#backend = backend;
    this.ready = this.#load();
  }

  /** Where the entries live: "cache", "indexeddb" or "memory". */
  get kind() {
    return this.#backend.kind;
  }

  /** Bytes the entries hold. */
  get held() {
    return this.#held;
  }

  setCap(bytes) {
    this.#cap = bytes;
    this.#evict();
  }

  async #load() {
    let index;
    try {
      const bytes = await this.#backend.get(INDEX);
      index = bytes && JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      index = undefined; // unreadable: start empty; the sweep removes what it listed
    }
    // Rows that are not what this file writes are skipped: their entries go with the sweep.
    const whole = (n) => Number.isSafeInteger(n) && n >= 0;
    const text = (t) => typeof t === "string";
    if (index?.v === 1 && whole(index.clock) && Array.isArray(index.objects) && Array.isArray(index.entries)) {
      this.#clock = index.clock;
      for (const row of index.objects) {
        const [key, etag, size] = Array.isArray(row) ? row : [];
        if (text(key) && text(etag) && whole(size)) this.#objects.set(key, { etag, size });
      }
      for (const row of index.entries) {
        const [key, etag, start, end, used] = Array.isArray(row) ? row : [];
        const known = this.#objects.get(key)?.etag === etag;
        if (known && whole(start) && whole(end) && start < end && whole(used)) this.#add(key, etag, start, end, used, true);
      }
    }
    this.#track(this.#sweep());
  }

  /** Drops entries the backend lost and removes what no index lists (an index write lost to another tab). */
  async #sweep() {
    if (!this.#backend.keys) return;
    const present = new Set(await this.#backend.keys());
    for (const [url, entry] of this.#entries) {
      if (entry.listed && !present.has(url)) {
        this.#remove(url, false);
        this.#save();
      }
    }
    for (const url of present) {
      if (url.startsWith(ROOT) && url !== INDEX && !this.#entries.has(url)) await this.#backend.delete(url);
    }
  }

  /** The version kept for `key`: `{etag, size}` or undefined. */
  version(key) {
    return this.#objects.get(key);
  }

  /** Records the version `key` is now; another version's entries go. */
  setVersion(key, etag, size) {
    const before = this.#objects.get(key);
    if (before?.etag === etag && before.size === size) return;
    this.forget(key);
    this.#objects.set(key, { etag, size });
    this.#save();
  }

  /** Drops `key`'s version and every entry of it. */
  forget(key) {
    if (!this.#objects.delete(key)) return;
    for (const [url, entry] of this.#entries) if (entry.key === key) this.#remove(url, true);
    this.#save();
  }

  /** Bytes `start..end` of `key` at `etag`, when kept entries cover them. */
  async lookup(key, etag, start, end) {
    if (this.#objects.get(key)?.etag !== etag) return undefined;
    const pieces = this.#cover(key, etag, start, end);
    if (!pieces) return undefined;
    const now = ++this.#clock;
    const parts = await Promise.all(pieces.map(({ url }) => this.#writing.get(url) ?? this.#backend.get(url).catch(() => undefined)));
    const out = new Uint8Array(end - start);
    for (let i = 0; i < pieces.length; i++) {
      const { url, entry, from, to } = pieces[i];
      const bytes = parts[i];
      if (!bytes || bytes.length !== entry.end - entry.start) {
        // Evicted by the browser, or lost: forget it and read from the source.
        if (this.#entries.get(url) === entry) this.#remove(url, true);
        this.#save();
        return undefined;
      }
      out.set(bytes.subarray(from - entry.start, to - entry.start), from - start);
      entry.used = now;
    }
    this.#save();
    return out;
  }

  /** The entries that cover `start..end`, left to right, or undefined. */
  #cover(key, etag, start, end) {
    const exactUrl = urlOf(key, etag, start, end);
    const exact = this.#entries.get(exactUrl);
    if (exact) return [{ url: exactUrl, entry: exact, from: start, to: end }];
    const candidates = [];
    for (const [url, entry] of this.#entries) {
      if (entry.key === key && entry.etag === etag && entry.start < end && entry.end > start) candidates.push({ url, entry });
    }
    const pieces = [];
    for (let at = start; at < end; ) {
      let best;
      for (const c of candidates) if (c.entry.start <= at && c.entry.end > at && (!best || c.entry.end > best.entry.end)) best = c;
      if (!best) return undefined;
      const to = Math.min(end, best.entry.end);
      pieces.push({ ...best, from: at, to });
      at = to;
    }
    return pieces;
  }

  /** Keeps `bytes` (sources.js, `Bytes`) as `key`'s bytes from `start`, if `etag` is the version kept. */
  keep(key, etag, start, bytes) {
    const length = lengthOf(bytes);
    const end = start + length;
    if (this.#objects.get(key)?.etag !== etag || length === 0 || length > this.#cap) return;
    const url = this.#add(key, etag, start, end, ++this.#clock, false);
    if (!url) return; // kept already
    // A copy of its own: the caller's bytes go into wasm memory and may be reused.
    const copy = Array.isArray(bytes) ? joined(bytes) : bytes.slice();
    this.#writing.set(url, copy);
    this.#track(
      this.#backend.put(url, copy).then(
        () => {
          if (this.#writing.get(url) === copy) this.#writing.delete(url);
        },
        () => {
          this.#writing.delete(url);
          this.#remove(url, false); // quota or refusal: not kept
          this.#save();
        },
      ),
    );
    this.#evict();
    this.#save();
  }

  /** `listed`: read from the stored index (the sweep checks those against the
   * backend). Answers the entry's URL, or undefined if it was there already. */
  #add(key, etag, start, end, used, listed) {
    const url = urlOf(key, etag, start, end);
    if (this.#entries.has(url)) return undefined;
    this.#entries.set(url, { key, etag, start, end, used, listed });
    this.#held += end - start;
    return url;
  }

  #remove(url, fromBackend) {
    const entry = this.#entries.get(url);
    if (!entry) return;
    this.#entries.delete(url);
    this.#writing.delete(url);
    this.#held -= entry.end - entry.start;
    if (fromBackend) this.#track(this.#backend.delete(url).catch(() => {}));
  }

  /** Least recently used entries go until the rest fit the cap. */
  #evict() {
    if (this.#held <= this.#cap) return;
    const oldest = [...this.#entries].sort((a, b) => a[1].used - b[1].used);
    for (const [url] of oldest) {
      if (this.#held <= this.#cap) break;
      this.#remove(url, true);
    }
    this.#save();
  }

  /** Writes the index `SAVE_AFTER_MS` after the first change not yet written (many changes, one write). */
  #save() {
    if (this.#saving) return;
    this.#saving = new Promise((wake) => setTimeout(wake, SAVE_AFTER_MS)).then(() => {
      this.#saving = undefined;
      const index = {
        v: 1,
        clock: this.#clock,
        objects: [...this.#objects].map(([key, { etag, size }]) => [key, etag, size]),
        entries: [...this.#entries.values()].map((e) => [e.key, e.etag, e.start, e.end, e.used]),
      };
      return this.#backend.put(INDEX, new TextEncoder().encode(JSON.stringify(index))).catch(() => {});
    });
    this.#track(this.#saving);
  }

  #track(promise) {
    const settled = promise.catch(() => {}).finally(() => this.#pending.delete(settled));
    this.#pending.add(settled);
  }

  /** Resolves when every write and deletion started so far has landed. */
  async flush() {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}

/**
 * `source` (an HTTP or R2 source) with its reads kept in the page's cache
 * (`kept`, a promise). See the top of this file for the protocol.
 */
export function persistSource(source, kept) {
  const { key, etag: pinnedEtag, revalidateTail } = source.persistable;
  let etag; // the version being read, once the tail told it

  /** A fresh tail from the source: its version becomes the one kept. */
  function adopt(tail, cache) {
    etag = pinnedEtag();
    if (etag === undefined) {
      cache.forget(key); // no ETag: nothing can be revalidated, so nothing is kept
      return tail;
    }
    cache.setVersion(key, etag, tail.size);
    cache.keep(key, etag, tail.size - lengthOf(tail.bytes), tail.bytes);
    return tail;
  }

  async function readTail(length, signal) {
    const cache = await kept;
    try {
      const known = cache.version(key);
      if (known) {
        const from = Math.max(0, known.size - length);
        const bytes = await cache.lookup(key, known.etag, from, known.size);
        if (bytes) {
          const fresh = await revalidateTail(length, signal, known);
          if (fresh === undefined) {
            etag = known.etag;
            return { bytes, size: known.size };
          }
          return adopt(fresh, cache);
        }
      }
      return adopt(await source.readTail(length, signal), cache);
    } catch (error) {
      // Gone (a mask removed): what was kept of it must not come back.
      if (error?.code === "NotFound") cache.forget(key);
      throw error;
    }
  }

  async function read(offset, length, signal) {
    const cache = await kept;
    if (etag !== undefined) {
      const bytes = await cache.lookup(key, etag, offset, offset + length);
      if (bytes) return bytes;
    }
    const bytes = await source.read(offset, length, signal);
    if (etag !== undefined) cache.keep(key, etag, offset, bytes);
    return bytes;
  }

  return {
    describe: source.describe,
    readTail,
    read,
    flush: async () => (await kept).flush(),
  };
}
