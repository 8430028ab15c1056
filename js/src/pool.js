/**
 * The decode pool: zstd and lz4 blocks decoded on workers, so a read across
 * many datasets uses every core. Each worker instantiates the same compiled
 * `WebAssembly.Module` (compiled once, posted to it) and answers
 * `decodeBlock`; compressed bytes go in and decoded bytes come out as
 * transferred buffers, so no SharedArrayBuffer (and no COOP/COEP) is needed.
 *
 * The wasm side calls `pool.decode(codec, bytes, uncompressedSize, wanted)` for each
 * block (`src/wasm/decoder.rs`) and checks what comes back. Workers start on
 * the first block, not at open, so a catalogue-only session starts none; until
 * one has its module instantiated, `decode` answers `undefined` and the block
 * is decoded on the calling thread, so a short read never waits for a worker
 * to start (about 50 ms in Node, more than decoding one 8 MiB block).
 */
import { AtlasError } from "./errors.js";

/** The default size: cores − 1, at most 4. */
export function defaultWorkers(cores) {
  return Math.max(0, Math.min(4, (cores || 1) - 1));
}

export class DecodePool {
  #module;
  #size;
  #spawn;
  #workers = [];
  #jobs = new Map();
  #nextId = 0;
  #closed = false;

  /**
   * @param {WebAssembly.Module} module the compiled module, posted to each worker
   * @param {number} size how many workers at most
   * @param {(onMessage: Function, onError: Function) => Worker} spawn the runtime's worker
   */
  constructor(module, size, spawn) {
    this.#module = module;
    this.#size = size;
    this.#spawn = spawn;
  }

  /** Decodes one block on a worker (resolves to its bytes), or answers
   * `undefined` while no worker is ready: the caller decodes it itself. */
  decode = (codec, bytes, uncompressedSize, wanted) => {
    if (this.#closed) return Promise.reject(closedError());
    const worker = this.#pick();
    if (!worker.ready) return undefined;
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#jobs.set(id, { resolve, reject, worker });
      if (worker.busy++ === 0) worker.ref();
      worker.post({ id, codec, bytes, uncompressedSize, wanted }, [bytes.buffer]);
    });
  };

  /** Stops every worker; blocks still being decoded reject. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    for (const worker of this.#workers) worker.terminate();
    this.#workers = [];
    for (const job of this.#jobs.values()) job.reject(closedError());
    this.#jobs.clear();
  }

  /** The least busy ready worker, or a new one while the pool is short of its size. */
  #pick() {
    const ready = this.#workers.filter((w) => w.ready);
    let best = ready[0];
    for (const worker of ready) if (worker.busy < best.busy) best = worker;
    if (best && (best.busy === 0 || this.#workers.length >= this.#size)) return best;
    // Workers still starting count towards the size: no second start for them.
    if (this.#workers.length >= this.#size) return best ?? this.#workers[0];
    const worker = this.#spawn(
      (message) => this.#settle(message, worker),
      (error) => this.#lost(worker, error),
    );
    worker.busy = 0;
    worker.ready = false;
    worker.post({ module: this.#module });
    this.#workers.push(worker);
    return worker;
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
