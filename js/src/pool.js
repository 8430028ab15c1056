/**
 * The decode pool: zstd and lz4 blocks decoded by the decode module
 * (`atlas_decode_bg.wasm`: only `decodeBlock`, built for speed, a third of
 * the core's size; docs/benchmarks.md, "The decode module") on workers and
 * on the calling thread, so a read across many datasets uses every core.
 * Each worker instantiates the same compiled module (compiled once, posted
 * to it); compressed bytes go in and decoded bytes come out as transferred
 * buffers, so no SharedArrayBuffer (and no COOP/COEP) is needed.
 *
 * The wasm side calls `pool.decode(codec, bytes, uncompressedSize, wanted)`
 * for each block (`src/wasm/decoder.rs`) and checks what comes back. A block
 * goes to the least busy ready worker; while none is ready (or with none
 * asked for) the decode module's own instance decodes it here. Blocks queue
 * on busy workers rather than run here: in a page the calling thread is the
 * one that draws (on two cores, measured, either way took the same time).
 *
 * Nothing is loaded at open (a catalogue needs no blocks): a read starts
 * loading the decode module, then a worker. Until the module is in,
 * `decode` answers `undefined` and the core decodes the block itself, so a
 * short read never waits for a module or a worker to start; a module that
 * fails to load leaves every block to the core.
 */
import { AtlasError } from "./errors.js";

/** The default number of workers: cores − 1, at most 4. */
export function defaultWorkers(cores) {
  return Math.max(0, Math.min(4, (cores || 1) - 1));
}

export class DecodePool {
  #size;
  #spawn;
  #load;
  #decoder; // {module, decodeBlock}; undefined: not asked for; null: loading, or failed
  #workers = [];
  #jobs = new Map();
  #nextId = 0;
  #closed = false;

  /**
   * @param {number} size how many workers at most (0: the calling thread only)
   * @param {{spawn?: (onMessage: Function, onError: Function) => object,
   *   decoder: () => Promise<{module: WebAssembly.Module, decodeBlock: Function}>,
   *   loaded?: {module: WebAssembly.Module, decodeBlock: Function}}} runtime
   *   how this runtime starts a worker (none: no workers) and loads the
   *   decode module, and the module if this process has loaded it already
   */
  constructor(size, { spawn, decoder, loaded }) {
    this.#size = spawn ? size : 0;
    this.#spawn = spawn;
    this.#load = decoder;
    this.#decoder = loaded;
  }

  /** Decodes one block: on a worker (a promise of its bytes), here (its
   * bytes, a view valid until the next decode: the caller copies them at
   * once), or not at all while the decode module is not loaded (`undefined`:
   * the caller decodes it itself). `bytes` is valid only during the call. */
  decode = (codec, bytes, uncompressedSize, wanted) => {
    if (this.#closed) return Promise.reject(closedError());
    if (!this.#decoder) {
      this.prepare();
      return undefined;
    }
    const worker = this.#pick();
    if (!worker) return this.#decoder.decodeBlock(codec, bytes, uncompressedSize, wanted);
    const id = this.#nextId++;
    const copy = bytes.slice(); // a buffer of its own, transferred
    return new Promise((resolve, reject) => {
      this.#jobs.set(id, { resolve, reject, worker });
      if (worker.busy++ === 0) worker.ref();
      worker.post({ id, codec, bytes: copy, uncompressedSize, wanted }, [copy.buffer]);
    });
  };

  /** Stops every worker; blocks still being decoded on them reject. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    for (const worker of this.#workers) worker.terminate();
    this.#workers = [];
    for (const job of this.#jobs.values()) job.reject(closedError());
    this.#jobs.clear();
  }

  /** Starts loading the decode module (a read is coming), once, then a worker. */
  prepare() {
    if (this.#decoder) {
      if (this.#workers.length === 0 && this.#size > 0 && !this.#closed) this.#start();
      return;
    }
    if (this.#decoder === null) return; // loading, or failed to load
    this.#decoder = null; // loading; stays null if it fails
    this.#load().then(
      (decoder) => {
        if (this.#closed) return;
        this.#decoder = decoder;
        // A read is under way: start a worker now, not on its next block.
        if (this.#size > 0) this.#start();
      },
      () => {},
    );
  }

  /** The least busy ready worker, if any; starts one more while the pool is
   * short of its size and every ready one is busy. */
  #pick() {
    const best = this.#workers.filter((w) => w.ready).reduce((a, w) => (a && a.busy <= w.busy ? a : w), undefined);
    if ((best && best.busy === 0) || this.#workers.length >= this.#size) return best;
    this.#start();
    return best;
  }

  #start() {
    const worker = this.#spawn(
      (message) => this.#settle(message, worker),
      (error) => this.#lost(worker, error),
    );
    worker.busy = 0;
    worker.ready = false;
    worker.post({ module: this.#decoder.module });
    this.#workers.push(worker);
  }

  #settle({ id, bytes, error, ready }, worker) {
    if (ready) {
      worker.ready = true;
      return;
    }
    const job = this.#jobs.get(id);
    if (!job) return;
    this.#jobs.delete(id);
    if (--job.worker.busy === 0) job.worker.unref();
    if (error) job.reject(new AtlasError(error.message, error.code));
    else job.resolve(bytes);
  }

  /** A worker that died takes its blocks with it; later blocks get a new one. */
  #lost(worker, error) {
    worker.terminate();
    this.#workers = this.#workers.filter((w) => w !== worker);
    for (const [id, job] of this.#jobs) {
      if (job.worker !== worker) continue;
      this.#jobs.delete(id);
      job.reject(new AtlasError(`a decode worker failed: ${error?.message ?? error}`, "Io"));
    }
  }
}

function closedError() {
  return new AtlasError("the collection was closed; open it again", "InvalidArgument");
}

/** A module Web Worker (browsers, Deno, Bun), in the form bundlers follow. */
export function webWorker(onMessage, onError) {
  const worker = new Worker(new URL("./decode-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (event) => onMessage(event.data);
  worker.onerror = (event) => {
    event.preventDefault?.();
    onError(new Error(event.message || "the decode worker failed to start"));
  };
  return {
    post: (message, transfer) => worker.postMessage(message, transfer ?? []),
    terminate: () => worker.terminate(),
    ref() {},
    unref() {},
  };
}
