/**
 * The entry `atlas-wasm/atria`: `AtriaCache`, `AtriaSplit`, `ParquetFile`,
 * `AtriaError`.
 * Atria dataset caches (a Delta Lake table with WebDataset TAR pointers, or
 * datadings msgpack shards) read through the package's sources. Every
 * answer comes from the Rust readers (`atlas_wasm::atria`) in a wasm module
 * of their own (`atria_wasm_bg.wasm`), through `bindings/atria`; what
 * lives here is what is idiomatic only in JavaScript: URLs, sources,
 * `AbortSignal`, the async iterator.
 *
 * The module is initialised on the first `AtriaCache.open`, by whichever
 * runtime entry (`atria-browser.js`, `atria-node.js`, `atria-workerd.js`)
 * was imported.
 */
import { cancellableWith } from "./abort.js";
import { AtriaCacheHandle, ParquetHandle, setDriver, setErrorClass } from "./atria_wasm.js";
import { directorySources, httpSource } from "./http.js";
import { r2Source } from "./r2.js";
import { toSource } from "./sources.js";
import { startUp } from "./start.js";

/**
 * The error of the Atria entry. `code` is one of the package's codes
 * (`CODES` of errors.js; the Rust readers' `atria::Error::code()`, which
 * is a core code for what a source or budget raised): `BadPointer`,
 * `NotFound`, `UnsupportedProtocol`, `Corrupt`, the transport codes of
 * `AtlasError` (the same HTTP and R2 sources serve both entries), and
 * `InvalidArgument`, `OutOfBounds`, `TooLarge`, `Aborted`, `Internal`.
 */
export class AtriaError extends Error {
  /**
   * @param {string} message
   * @param {string} code
   * @param {{cause?: unknown, status?: number}} [options]
   */
  constructor(message, code, options) {
    super(message, options);
    this.name = "AtriaError";
    this.code = code;
    if (options?.status !== undefined) this.status = options.status;
  }
}

const wasm = startUp({ setErrorClass, setDriver }, AtriaError, "atlas-wasm/atria");

/** Called once by the runtime entry with its way of loading the module. */
export function bindInit(init) {
  wasm.bind(init);
}

/** One Atria cache: a config directory (`{storage_dir}/{config}`). */
export class AtriaCache {
  #handle;

  /** @internal Use `AtriaCache.open`. */
  constructor(handle) {
    expect(handle instanceof AtriaCacheHandle, "use AtriaCache.open(...) to open a cache");
    this.#handle = handle;
  }

  /**
   * Opens a cache: the URL of its config directory (each path is fetched
   * beside it, with the package's HTTP rules), or `{source, list?}` where
   * `source(relativePath)` answers a source for that path (null when there
   * is none) and `list(dir)` the names directly under `dir` (null when it
   * cannot list; the readers then probe the usual names).
   */
  static async open(target, options = {}) {
    return cancellable(options.signal, async (abort) => {
      await wasm.start();
      return new AtriaCache(await AtriaCacheHandle.open(storeOf(target, options), abort));
    });
  }

  /** `{source, list}` for a cache under `prefix` in an R2 bucket (listing included). */
  static fromR2(bucket, prefix = "", options = {}) {
    expect(typeof bucket?.get === "function", "AtriaCache.fromR2 takes an R2 bucket binding");
    expect(typeof prefix === "string", "the prefix must be a string");
    const root = prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
    return {
      source: (path) => r2Source(bucket, root + path, options),
      list: typeof bucket.list === "function" ? (dir) => listR2(bucket, root + (dir === "" ? "" : `${dir}/`)) : undefined,
    };
  }

  /** `"deltalake"` or `"msgpack"`. */
  get backend() {
    return this.#handle.backend;
  }

  /** The split names, the usual ones first (train, validation, test). */
  get splits() {
    return this.#handle.splits;
  }

  /**
   * The bytes of TAR member `member` (e.g. `{key}.{field}__content`) behind `pointer`
   * (`shards/….tar?offset=O&length=L`), for pointers from elsewhere than a
   * split's rows: verified with one read, else recovered by name; else
   * `BadPointer`, saying what the pointer reaches.
   */
  async content(pointer, member, { signal } = {}) {
    expect(typeof pointer === "string" && typeof member === "string", "content(pointer, member) takes two strings");
    return cancellable(signal, (abort) => this.#handle.content(pointer, member, abort));
  }

  /** `{pointer, ok, defect, recovered, member, naming, keyConvention}` for `pointer` and `member` (`naming`, `keyConvention` null), never `BadPointer`. */
  async check(pointer, member, { signal } = {}) {
    expect(typeof pointer === "string" && typeof member === "string", "check(pointer, member) takes two strings");
    return cancellable(signal, (abort) => this.#handle.check(pointer, member, abort));
  }

  /** A TAR shard's members grouped into WebDataset samples: `[{key, members: [{name, offset, size}]}]`. */
  async samples(shard, { signal } = {}) {
    expect(typeof shard === "string", "samples(shard) takes the shard's relative path");
    return cancellable(signal, (abort) => this.#handle.samples(shard, abort));
  }

  /** Opens a split: its Delta log, or its msgpack shards' offsets. */
  async split(name, { signal } = {}) {
    expect(typeof name === "string", `expected a split name, got ${typeof name}`);
    return cancellable(signal, async (abort) => new AtriaSplit(await this.#handle.split(name, abort)));
  }
}

/** One split of a cache. */
export class AtriaSplit {
  #handle;
  #columns;

  /** @internal Use `cache.split(name)`. */
  constructor(handle) {
    this.#handle = handle;
    this.#columns = Object.freeze(handle.columns);
  }

  get name() {
    return this.#handle.name;
  }

  /** Rows (Delta) or records (msgpack). */
  get numRows() {
    return this.#handle.numRows;
  }

  /** `[{name, type}]`: the Delta schema, or the first msgpack record's keys. */
  get columns() {
    return this.#columns;
  }

  /** Row `i` as a plain object; numpy values as `{dtype, shape, data}`. */
  async row(i, { signal } = {}) {
    return cancellable(signal, (abort) => this.#handle.row(i, abort));
  }

  /** The bytes behind `field` in row `i`: a verified or recovered TAR member, a `data/` file, or inline bytes. */
  async content(i, field, { signal } = {}) {
    expect(typeof field === "string", `expected a field name, got ${typeof field}`);
    return cancellable(signal, (abort) => this.#handle.content(i, field, abort));
  }

  /**
   * `{pointer, ok, defect, recovered, member, naming, keyConvention}`: what
   * resolving `field` of row `i` found, never `BadPointer`. `naming` says which
   * member name was found: `"content"` (`{key}.{field}__content`) or `"field"`
   * (`{key}.{field}`); `keyConvention` how its key was made from the row
   * (`"verbatim"`, `"dots"`, `"dots-slashes"`, `"dots-slashes-hash"`).
   */
  async check(i, field, { signal } = {}) {
    expect(typeof field === "string", `expected a field name, got ${typeof field}`);
    return cancellable(signal, (abort) => this.#handle.check(i, field, abort));
  }

  /** Every row in order, from `start` (default 0). */
  async *rows({ start = 0, signal } = {}) {
    expect(Number.isSafeInteger(start) && start >= 0, "start must be a whole number >= 0");
    for (let i = start; i < this.numRows; i++) yield await this.row(i, { signal });
  }
}

/**
 * One parquet file by URL (a HuggingFace dataset's, say) or any source the
 * package reads: its footer in one tail read, then each row group's column
 * chunks by range, only the columns asked for. Rows are plain objects, as a
 * split's are. The reader is the one Delta tables go through.
 */
export class ParquetFile {
  #handle;
  #columns;
  #groups;

  /** @internal Use `ParquetFile.open`. */
  constructor(handle) {
    expect(handle instanceof ParquetHandle, "use ParquetFile.open(...) to open a parquet file");
    this.#handle = handle;
    this.#columns = Object.freeze(handle.columns);
    this.#groups = Object.freeze(Array.from(handle.rowGroupRows));
  }

  /** Opens the file at a URL (the package's HTTP rules) or behind a source (`Atlas.fromBlob(...)`, `{read(offset, length)}`, …). */
  static async open(target, options = {}) {
    return cancellable(options.signal, async (abort) => {
      await wasm.start();
      const source =
        typeof target === "string" || target instanceof URL
          ? httpSource(new URL(String(target), globalThis.location?.href), options)
          : target;
      return new ParquetFile(await ParquetHandle.open(toSource(source, "the parquet file"), abort));
    });
  }

  get numRows() {
    return this.#handle.numRows;
  }

  /** `[{name, type}]`: the top-level fields ("int64", "string", "list<string>", "struct<…>", …). */
  get columns() {
    return this.#columns;
  }

  /** The rows in each row group. */
  get rowGroups() {
    return this.#groups;
  }

  /** The rows of row group `i`, only `columns` when given (the other columns' bytes are not read). */
  async readRowGroup(i, { columns, signal } = {}) {
    expect(columns === undefined || (Array.isArray(columns) && columns.every((c) => typeof c === "string")), "columns must be an array of column names");
    return cancellable(signal, (abort) => this.#handle.readRowGroup(i, columns, abort));
  }

  /** Row `i`, reading its row group (the last one read is kept, so rows in order cost one read per group). */
  async row(i, { signal } = {}) {
    return cancellable(signal, (abort) => this.#handle.row(i, abort));
  }

  /** Every row in order, a row group at a time (only `columns` when given). */
  async *rows({ columns, signal } = {}) {
    for (let g = 0; g < this.#groups.length; g++) yield* await this.readRowGroup(g, { columns, signal });
  }
}

/** The store object `bindings/atria/src/store.rs` calls: `open(path)` and `list(dir)`. */
function storeOf(target, options) {
  if (typeof target === "string" || target instanceof URL) return urlStore(target, options);
  expect(target !== null && typeof target === "object" && typeof target.source === "function", "AtriaCache.open takes a URL or {source: (relativePath) => source, list?}");
  expect(target.list === undefined || typeof target.list === "function", "list must be a function (dir) => names");
  const { source, list } = target;
  return {
    open(path) {
      const made = source(path);
      if (made === null || made === undefined) throw new AtriaError(`no object at '${path}'`, "NotFound");
      return toSource(made, path);
    },
    list: async (dir) => (list ? ((await list(dir)) ?? null) : null),
  };
}

/** The HTTP sources a URL store keeps, so that an object's ETag stays pinned. */
const KEPT_SOURCES = 4096;

/**
 * Paths resolved against the cache's URL, one HTTP source per path (the
 * last `KEPT_SOURCES` kept, so an object's ETag stays pinned from its first
 * answer while memory stays bounded over a million `data/` files), all under
 * one cap on requests in flight. HTTP cannot list: the readers probe.
 */
function urlStore(target, options) {
  const inDirectory = directorySources(target, options);
  if (!inDirectory) throw new AtriaError(`${target} is not a URL; pass an absolute URL of the cache's config directory`, "InvalidArgument");
  const sources = new Map();
  return {
    open(path) {
      let source = sources.get(path);
      if (!source) {
        source = toSource(inDirectory(path), path);
        if (sources.size >= KEPT_SOURCES) sources.delete(sources.keys().next().value);
        sources.set(path, source);
      }
      return source;
    },
    list: async () => null,
  };
}

/** The names directly under `prefix` in `bucket`, every page of them. */
async function listR2(bucket, prefix) {
  const names = [];
  let cursor;
  do {
    const page = await bucket.list({ prefix, delimiter: "/", cursor });
    for (const object of page.objects ?? []) names.push(object.key.slice(prefix.length));
    for (const dir of page.delimitedPrefixes ?? []) names.push(dir.slice(prefix.length).replace(/\/$/, ""));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return names.filter((n) => n !== "").sort();
}

const cancellable = cancellableWith((signal) => new AtriaError("the read was aborted", "Aborted", { cause: signal.reason }));

function expect(ok, message) {
  if (!ok) throw new AtriaError(message, "InvalidArgument");
}
