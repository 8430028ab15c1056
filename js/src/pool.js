/**
 * The decode pool: zstd and lz4 blocks decoded on workers, so a read across
 * many datasets uses every core. Each worker instantiates the decode module
 * (`atlas_decode_bg.wasm`: only `decodeBlock`, built for speed) from one
 * compiled module posted to it; compressed bytes go in and decoded bytes come
 * out as transferred buffers, so no SharedArrayBuffer (and no COOP/COEP) is
 * needed.
 *
 * The wasm side calls `pool.decode(codec, bytes, uncompressedSize, wanted)`
 * for each block (`bindings/collection/src/decoder.rs`) and checks what comes back. A block
 * goes to the least busy ready worker; while none is ready, or with none
 * asked for, `decode` answers `undefined` and the core decodes the block in
 * place, with the same libzstd (docs/benchmarks.md, "The decode module": decoding on
 * the calling thread in a module of its own cost a copy of every block each
 * way). Blocks queue on busy workers rather than run here: in a page the
 * calling thread is the one that draws.
 *
 * Nothing is loaded at open (a catalogue needs no blocks), and nothing at all
 * without workers: a read starts loading the decode module, then a worker,
 * so a short read never waits for either; a module that fails to load
 * leaves every block to the core.
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
  #module; // the compiled decode module; undefined: not asked for; null: loading, or failed
  #workers = [];
  #jobs = new Map();
  #nextId = 0;
  #closed = false;

  /**
   * @param {number} size how many workers at most (0: none, every block decoded by the core)
   * @param {{spawn?: (onMessage: Function, onError: Function) => object,
   *   decoder: () => Promise<WebAssembly.Module>, loaded?: WebAssembly.Module}} runtime
   *   how this runtime starts a worker (none: no workers) and compiles the
   *   decode module, and the module if this process has compiled it already
   */
  constructor(size, { spawn, decoder, loaded }) {
    this.#size = spawn ? size : 0;
    this.#spawn = spawn;
    this.#load = decoder;
    this.#module = loaded;
  }

  /** Decodes one block on a worker (a promise of its bytes), or answers
   * `undefined` while no worker is ready: the caller decodes it itself.
   * `bytes` is valid only during the call. */
  decode = (codec, bytes, uncompressedSize, wanted) => {
    if (this.#closed) return Promise.reject(closedError());
    const worker = this.#pick();
    if (!worker) return undefined;
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

  /** A read is coming: starts compiling the decode module (once), then a
   * worker. Nothing without workers. */
  prepare() {
    if (this.#size === 0 || this.#closed) return;
    if (this.#module) {
      if (this.#workers.length === 0) this.#start();
      return;
    }
    if (this.#module === null) return; // loading, or failed to load
    this.#module = null;
    this.#load().then(
      (module) => {
        if (this.#closed) return;
        this.#module = module;
        this.#start(); // a read is under way: now, not on its next block
      },
      () => {},
    );
  }

  /** The least busy ready worker, if any. Starts the module loading, or one
   * more worker while the pool is short of its size and every ready one is busy. */
  #pick() {
    if (!this.#module) {
      this.prepare();
      return undefined;
    }
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
    worker.post({ module: this.#module });
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
