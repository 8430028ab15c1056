/**
 * The public API: `Atlas`, `Dataset`, `AtlasError`. Each method is a thin
 * call into the wasm handles (`bindings/collection/src/handle.rs`); what lives here is what
 * is idiomatic only in JavaScript: URLs, sources, `AbortSignal`, getters.
 *
 * The wasm module is initialised on the first `Atlas.open`, by whichever
 * runtime entry (`browser.js`, `node.js`, `workerd.js`) was imported.
 */
import { abortOf, cancellableWith } from "./abort.js";
import { AtlasHandle, setDriver, setErrorClass } from "./atlas_wasm.js";
import { AtlasError, aborted, expect } from "./errors.js";
import { directorySources, httpSource } from "./http.js";
import { keptBytes, persistOptions, persistSource } from "./persist.js";
import { DecodePool, defaultWorkers } from "./pool.js";
import { r2Source } from "./r2.js";
import { blobSource, bytesSource, progressReporter, toSource } from "./sources.js";
import { startUp } from "./start.js";

const wasm = startUp({ setErrorClass, setDriver }, AtlasError, "atlas-wasm");
let runtime = {}; // {spawn?, cores?, decoder?}: no decoder (workerd), the core decodes every block
let decoder; // the decode module for workers, compiling or compiled, once per process

/** Compiles the decode module once (a failure is retried by a later pool); a
 * compiled one is `decoder.loaded`, so that a later pool starts with it. */
function loadDecoder() {
  decoder ??= runtime.decoder().then(
    (loaded) => (decoder.loaded = loaded),
    (error) => {
      decoder = undefined;
      throw error;
    },
  );
  return decoder;
}

/**
 * Called once by the runtime entry with its way of initialising the core
 * module, and of loading the decode module and starting decode workers.
 */
export function bindInit(init, decoding = {}) {
  wasm.bind(init);
  runtime = decoding;
}

/** One open collection: `data.atlas`, less what `deleted.mask` hides. */
export class Atlas {
  #handle;
  #info;
  #pool;
  #data;

  /** @internal Use `Atlas.open`. */
  constructor(handle, pool, data) {
    expect(handle instanceof AtlasHandle, "use Atlas.open(...) to open a collection");
    this.#handle = handle;
    this.#info = handle.info();
    this.#pool = pool;
    this.#data = data;
  }

  /**
   * Opens a collection: a URL of its directory (reads `data.atlas` and
   * `deleted.mask` there), or `{data, mask}` sources.
   */
  static async open(target, options = {}) {
    if (options.signal?.aborted) throw aborted(options.signal);
    const persist = persistOptions(options.persist);
    const starting = wasm.start();
    let sources;
    try {
      sources = sourcesOf(target, options, persist && keptBytes(persist.bytes));
    } catch (error) {
      starting.catch(() => {}); // the argument's error is the one to report
      throw error;
    }
    const { data, mask } = askedEarly(sources, options);
    await starting;
    const abort = abortOf(options.signal);
    const pool = decodePool(options.decodeWorkers);
    try {
      // The core reads its own options by name (ReadOptions::BY_JS_NAME).
      const numbers = { ...options, decode: pool?.decode };
      return new Atlas(await AtlasHandle.open(data, mask, numbers, abort?.promise), pool, data);
    } catch (error) {
      pool?.close();
      throw error;
    } finally {
      abort?.dispose();
    }
  }

  static fromUrl(url, options) {
    return httpSource(url, options);
  }

  static fromR2(bucket, key, options) {
    return r2Source(bucket, key, options);
  }

  static fromBlob(blob) {
    return blobSource(blob);
  }

  static fromBytes(bytes) {
    return bytesSource(bytes);
  }

  get datasetCount() {
    return this.#info.datasetCount;
  }
  get totalDatasets() {
    return this.#info.totalDatasets;
  }
  get deletedCount() {
    return this.#info.deletedCount;
  }
  get createdUnixMs() {
    return this.#info.createdUnixMs;
  }
  get codec() {
    return this.#info.codec;
  }
  get formatVersion() {
    return this.#info.formatVersion;
  }
  get containerBytes() {
    return this.#info.containerBytes;
  }
  get cachedBytes() {
    return this.#open().cachedBytes();
  }

  listDatasets() {
    return this.#open().listDatasets();
  }

  listArrays() {
    return this.#open().listArrays();
  }

  hasDataset(name) {
    return this.#open().hasDataset(text(name, "a dataset name"));
  }

  dataset(name) {
    return new Dataset(this.#open().dataset(text(name, "a dataset name")), this.#data, this.#pool);
  }

  async arrayStats(array, { signal } = {}) {
    const name = text(array, "an array name");
    return cancellable(signal, (abort) => this.#open().arrayStats(name, abort));
  }

  async arrayStatsByDataset(array, { signal } = {}) {
    const name = text(array, "an array name");
    return cancellable(signal, (abort) => this.#open().arrayStatsByDataset(name, abort));
  }

  async attributesByDataset(array, key, { signal } = {}) {
    const name = array === null || array === undefined ? undefined : text(array, "an array name or null");
    const attribute = text(key, "an attribute key");
    return cancellable(signal, (abort) => this.#open().attributesByDataset(name, attribute, abort));
  }

  /**
   * Reads one array (or one window of it) from many datasets as one stacked
   * answer `{dtype, datasets, shape: [n, ...], data}`: every block the answer
   * needs is fetched as one request set, and `data` is one typed array.
   */
  async readAcross(array, options = {}) {
    const { datasets, start, shape, skip = false, signal, onProgress } = options;
    if (signal?.aborted) throw aborted(signal);
    expect((start === undefined) === (shape === undefined), "give start and shape together, or neither");
    expect(onProgress === undefined || typeof onProgress === "function", "onProgress must be a function");
    expect(typeof skip === "boolean", "skip must be true or false");
    expect(datasets === undefined || (Array.isArray(datasets) && datasets.every((d) => typeof d === "string")), "datasets must be an array of dataset names");
    const abort = abortOf(signal);
    const reporter = progressReporter(onProgress, this.#data);
    this.#pool?.prepare();
    try {
      return await this.#open().readAcross(text(array, "an array name"), datasets, axes(start, "start"), axes(shape, "shape"), skip, abort?.promise, reporter);
    } finally {
      reporter?.finish();
      abort?.dispose();
    }
  }

  /**
   * One array of every live dataset that declares it (or of `datasets`), a
   * batch of `batch` datasets at a time: each batch is one `readAcross`, so
   * memory holds one batch's answer however many datasets there are.
   * Yields `{name, shape, data}` in dataset order; a dataset whose array does
   * not stack with its batch's is read on its own.
   */
  async *iterate(array, { datasets, batch = 256, signal } = {}) {
    const name = text(array, "an array name");
    expect(Number.isInteger(batch) && batch > 0, "batch must be a whole number > 0");
    expect(datasets === undefined || (Array.isArray(datasets) && datasets.every((d) => typeof d === "string")), "datasets must be an array of dataset names");
    const all = datasets ?? this.listDatasets();
    for (let from = 0; from < all.length; from += batch) {
      // Only listed datasets must declare the array; the others are passed over.
      const names = datasets ? all.slice(from, from + batch) : all.slice(from, from + batch).filter((n) => this.#declares(n, name));
      if (names.length === 0) continue;
      const part = await this.readAcross(name, { datasets: names, skip: true, signal });
      const size = part.shape.slice(1).reduce((a, b) => a * b, 1);
      const stacked = new Map(part.datasets.map((n, i) => [n, i]));
      for (const n of names) {
        const at = stacked.get(n);
        if (at === undefined) {
          const alone = await this.dataset(n).read(name, { signal });
          yield { name: n, shape: alone.shape, data: alone.data };
        } else {
          yield { name: n, shape: part.shape.slice(1), data: part.data.slice(at * size, (at + 1) * size) };
        }
      }
    }
  }

  /**
   * Resolves when every range `persist` is keeping has been written to the
   * persistent cache (at once without `persist`). A Worker passes it to
   * `ctx.waitUntil`; a page need not wait for it.
   */
  async flush() {
    await this.#data?.flush?.();
  }

  /** Frees the collection's memory and its decode workers now; its datasets stop working. */
  close() {
    this.#pool?.close();
    if (!this.#handle) return;
    this.#handle.close();
    this.#handle.free();
    this.#handle = undefined;
  }

  /** Whether dataset `dataset` declares `array`; its handle is freed at once, not left to the GC. */
  #declares(dataset, array) {
    const handle = this.#open().dataset(dataset);
    try {
      return handle.listArrays().includes(array);
    } finally {
      handle.free();
    }
  }

  #open() {
    if (!this.#handle) throw new AtlasError("the collection was closed; open it again", "InvalidArgument");
    return this.#handle;
  }
}

/** One live dataset of an open collection. */
export class Dataset {
  #handle;
  #data;
  #pool;

  /** @internal Use `atlas.dataset(name)`. */
  constructor(handle, data, pool) {
    this.#handle = handle;
    this.#data = data;
    this.#pool = pool;
  }

  get name() {
    return this.#handle.name;
  }

  get ordinal() {
    return this.#handle.ordinal;
  }

  /** What the dataset declares; no I/O. */
  get schema() {
    return this.#handle.schema();
  }

  listArrays() {
    return this.#handle.listArrays();
  }

  async layout(array, { signal } = {}) {
    const name = text(array, "an array name");
    return cancellable(signal, (abort) => this.#handle.layout(name, abort));
  }

  async stats(array, { signal } = {}) {
    const name = text(array, "an array name");
    return cancellable(signal, (abort) => this.#handle.stats(name, abort));
  }

  async attributes({ signal } = {}) {
    return cancellable(signal, (abort) => this.#handle.attributes(abort));
  }

  async arrayAttributes(array, { signal } = {}) {
    const name = text(array, "an array name");
    return cancellable(signal, (abort) => this.#handle.arrayAttributes(name, abort));
  }

  /** Reads a window (`start` and `shape` together) or, without them, the whole array. */
  async read(array, options = {}) {
    const { start, shape, signal, onProgress } = options;
    if (signal?.aborted) throw aborted(signal);
    expect((start === undefined) === (shape === undefined), "give start and shape together, or neither");
    expect(onProgress === undefined || typeof onProgress === "function", "onProgress must be a function");
    const abort = abortOf(signal);
    const reporter = progressReporter(onProgress, this.#data);
    this.#pool?.prepare();
    try {
      return await this.#handle.read(text(array, "an array name"), axes(start, "start"), axes(shape, "shape"), abort?.promise, reporter);
    } finally {
      reporter?.finish();
      abort?.dispose();
    }
  }
}

/** The data and mask sources; with `kept` (persist's cache, a promise) their reads are kept. */
function sourcesOf(target, options, kept) {
  const keeping = (source, role) => {
    if (!kept || source == null) return source;
    if (!source.persistable) {
      throw new AtlasError(`persist keeps what a URL, Atlas.fromUrl or Atlas.fromR2 reads; the ${role} source is neither`, "InvalidArgument");
    }
    return persistSource(source, kept);
  };
  if (typeof target === "string" || target instanceof URL) {
    // Data and mask share one cap on requests in flight.
    const inDirectory = directorySources(target, options);
    if (!inDirectory) throw new AtlasError(`${target} is not a URL; pass an absolute URL of the collection's directory`, "InvalidArgument");
    const data = keeping(inDirectory("data.atlas"), "data");
    const mask = keeping(inDirectory("deleted.mask"), "mask");
    return { data: toSource(data, "data"), mask: toSource(mask, "mask") };
  }
  expect(target !== null && typeof target === "object" && "data" in target, "Atlas.open takes a URL or {data, mask}");
  const data = keeping(target.data, "data");
  return { data: toSource(data, "data"), mask: target.mask == null ? undefined : toSource(keeping(target.mask, "mask"), "mask") };
}

/** The core's first read of `data.atlas` (`TAIL_PROBE_SIZE`, src/format/container.rs) and of `deleted.mask`. */
const FIRST_TAIL = 64 * 1024;
/** Larger probes are left to the core, which may refuse them. */
const MAX_EARLY_TAIL = 8 * 1024 * 1024;

/**
 * The sources with their first tail reads asked for now, so that an open's
 * first requests travel while the wasm module compiles (a cold page or
 * process spends 10-20 ms there in Node, and a round trip for the .wasm in a
 * browser). The core asks for the same reads once it runs and is handed
 * these; a read of another length goes to the source as usual.
 */
function askedEarly({ data, mask }, options) {
  const probe = options.tailProbeBytes ?? FIRST_TAIL;
  if (!Number.isSafeInteger(probe) || probe <= 0 || probe > MAX_EARLY_TAIL) return { data, mask };
  const early = (source, length) => {
    if (source === undefined) return undefined;
    let first = source.readTail(length, options.signal);
    first.catch(() => {}); // reported when the core asks for it
    return {
      ...source,
      readTail(asked, signal) {
        const answer = asked === length ? first : undefined;
        first = undefined;
        return answer ?? source.readTail(asked, signal);
      },
    };
  };
  return { data: early(data, probe), mask: early(mask, FIRST_TAIL) };
}

/** The decode pool with `decodeWorkers` workers, or none: with no workers
 * asked for or possible (workerd) the core decodes every block, and no call
 * leaves wasm for a pool that would only answer "decode it yourself". */
function decodePool(count) {
  expect(count === undefined || (Number.isInteger(count) && count >= 0), "decodeWorkers must be a whole number >= 0");
  const size = count ?? defaultWorkers(runtime.cores);
  if (!runtime.decoder || !runtime.spawn || size === 0) return undefined;
  return new DecodePool(size, { spawn: runtime.spawn, decoder: loadDecoder, loaded: decoder?.loaded });
}

const cancellable = cancellableWith(aborted);

function axes(values, what) {
  if (values === undefined) return undefined;
  expect(Array.isArray(values) || ArrayBuffer.isView(values), `${what} must be an array of whole numbers`);
  return Float64Array.from(values, Number);
}

function text(value, what) {
  expect(typeof value === "string", `expected ${what}, got ${typeof value}`);
  return value;
}
