// Types of the atlas-wasm package. The implementation is js/src/*.js over
// the wasm handles of bindings/collection; docs/js-api.md explains each call.

/** Stable error codes: the Rust core's `Error::code()`s, then the Atria readers' own (`atria::Error`). */
export type AtlasErrorCode =
  | "NotAnAtlasCollection"
  | "UnsupportedVersion"
  | "CorruptCollection"
  | "CorruptMask"
  | "DatasetNotFound"
  | "ArrayNotFound"
  | "DTypeMismatch"
  | "OutOfBounds"
  | "Io"
  | "RangeNotSupported"
  | "ContentEncoded"
  | "HttpStatus"
  | "Network"
  | "Timeout"
  | "NotFound"
  | "ObjectChanged"
  | "Aborted"
  | "TooLarge"
  | "InvalidArgument"
  | "Internal"
  | "BadPointer"
  | "UnsupportedProtocol"
  | "Corrupt";

export class AtlasError extends Error {
  constructor(message: string, code: AtlasErrorCode, options?: { cause?: unknown; status?: number });
  readonly name: "AtlasError";
  readonly code: AtlasErrorCode;
  /** The HTTP status, on `HttpStatus` errors only. */
  readonly status?: number;
}

/** Element types, lower-case as atlas-python prints them. */
export type DType =
  | "bool" | "int8" | "int16" | "int32" | "int64"
  | "uint8" | "uint16" | "uint32" | "uint64"
  | "float32" | "float64" | "string" | "binary" | "timestamp_ns"
  | `list<${string}>` | `fixed_size_list<${string}>`;

/** What a read returns in `data`, by dtype. */
export type ArrayValues =
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array
  | Float32Array | Float64Array
  | string[] | Uint8Array[];

/** An attribute value: number, BigInt for 64-bit integers, string, bytes, lists. */
export type AttrValue =
  | boolean | number | bigint | string | Uint8Array
  | boolean[] | string[] | Uint8Array[]
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array
  | Float32Array | Float64Array;

/** A statistics bound or fill value takes the JavaScript type of its array's elements. */
export type ScalarValue = number | bigint | string | boolean | Uint8Array;

export interface Stats {
  min: ScalarValue | null;
  max: ScalarValue | null;
  nullCount: number;
  rowCount: number;
}

export interface DatasetStats extends Stats {
  dataset: string;
}

export interface Layout {
  shape: number[];
  chunkShape: number[];
  dimensions: string[];
  fillValue: ScalarValue | null;
}

export interface Schema {
  arrays: { name: string; dtype: DType; attributes: { key: string; dtype: DType }[] }[];
  attributes: { key: string; dtype: DType }[];
}

export interface ReadResult {
  dtype: DType;
  shape: number[];
  data: ArrayValues;
}

export interface Progress {
  /** Bytes of `total` received so far; equals `total` when the read succeeds. */
  loaded: number;
  /**
   * Bytes of the ranges the read plan requests (blocks not cached), known
   * before the first of them is sent and the same in every report. Opening a
   * variable's segment for the first time (its footer, read before anything
   * can be planned) is not in it.
   */
  total: number;
}

export interface ReadOptions {
  /** First element of the window on each axis; give with `shape`. */
  start?: ArrayLike<number>;
  /** Extent of the window on each axis; give with `start`. */
  shape?: ArrayLike<number>;
  signal?: AbortSignal;
  /** Called once with `{loaded: 0, total}` when the read is planned, then as each planned range arrives. */
  onProgress?: (progress: Progress) => void;
}

export interface ReadAcrossOptions extends ReadOptions {
  /** Only these datasets, in this order (default: every live dataset that declares the array). */
  datasets?: string[];
  /** Leave out datasets whose array does not stack with the first's, and list them in `skipped`. */
  skip?: boolean;
}

/** A dataset `readAcross` left out under `skip`, with what its array is. */
export interface SkippedDataset {
  dataset: string;
  dtype: DType;
  /** The dataset's whole array shape. */
  shape: number[];
}

export interface ReadAcrossResult {
  dtype: DType;
  /** The datasets stacked, in the order of `data`'s first axis. */
  datasets: string[];
  /** `[datasets.length, ...part shape]`. */
  shape: number[];
  /** Every part, one after another, in C order. */
  data: ArrayValues;
  /** Present when `skip` was set. */
  skipped?: SkippedDataset[];
}

/**
 * Anything readable by byte ranges. Give `size` (or `readTail`) and `read`;
 * `read` must answer exactly `length` bytes, as a Uint8Array or an ArrayBuffer.
 */
export interface Source {
  size?: number | (() => number | Promise<number>);
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array | ArrayBuffer>;
  readTail?(length: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array | ArrayBuffer; size: number }>;
  describe?(): string;
}

/**
 * What `new Headers(...)` takes, spelled out so that the declarations need
 * neither the DOM library nor Node's types.
 */
export type HeadersLike =
  | Record<string, string>
  | [string, string][]
  | { forEach(callback: (value: string, key: string) => void): void };

export interface UrlOptions {
  /** Extra request headers (e.g. Authorization): a Headers, a record or pairs. */
  headers?: HeadersLike;
  /**
   * A fetch to send the requests, called as `fetch(url, {headers, signal})`
   * with the headers as a record. Default: the global `fetch`; in Node, the
   * package's own transport over node:http(s), whose first request in a
   * fresh process measured 25–30 ms faster (docs/js-api.md, "HTTP in Node").
   */
  fetch?: typeof globalThis.fetch;
  /** Requests in flight at once (default 6). */
  maxConcurrency?: number;
  /** Attempts after a network error or a 5xx answer (default 3). */
  retries?: number;
  /**
   * Milliseconds one request (headers and body) may take (default 120000).
   * Past it the read rejects with code `Timeout`, without a retry.
   */
  timeout?: number;
}

/** The part of a Workers R2 binding the R2 source uses. */
export interface R2BucketLike {
  get(
    key: string,
    options?: {
      range?: { offset: number; length: number } | { suffix: number };
      /** `etagDoesNotMatch` only for `persist`'s revalidation of a kept tail. */
      onlyIf?: { etagMatches?: string; etagDoesNotMatch?: string };
    },
  ): Promise<
    | { size: number; etag: string; arrayBuffer(): Promise<ArrayBuffer> }
    | { size: number; etag: string }
    | null
  >;
}

export interface OpenOptions extends UrlOptions {
  signal?: AbortSignal;
  /** Budget of the decompressed-block cache (default 32 MiB). */
  cacheBytes?: number;
  /** Adjacent blocks are fetched in one request up to this many bytes (default 4 MiB). */
  coalesceBytes?: number;
  /**
   * The most memory one structure sized by the file may take (footer, mask,
   * segment footer, one block, one answer), and the cap of `cacheBytes`.
   * Past it a call rejects with code `TooLarge`. Default 64 MiB.
   */
  maxMemory?: number;
  /**
   * Bytes of the end of `data.atlas` the open reads first (default 64 KiB).
   * The footer and the segments written last (dataset attributes first) that
   * fit in them open without another request: a larger probe trades bytes
   * for a round trip (docs/read-path.md, "The first read").
   */
  tailProbeBytes?: number;
  /**
   * Workers that decode blocks (Web Workers in browsers, worker_threads in
   * Node) with the decode module (`atlas_decode_bg.wasm`, compiled on the
   * first read), started on the first read and stopped by `close()`; until
   * one is ready the core decodes on the calling thread.
   * Default: cores − 1, at most 4; 0 decodes on the calling thread.
   * Cloudflare Workers (workerd) have no workers: blocks are always decoded
   * inline there, by the core module.
   */
  decodeWorkers?: number;
  /**
   * Keep what is read across page loads (docs/js-api.md, "Keeping blocks
   * across page loads"): compressed blocks, segment footers, the footer and
   * the mask, keyed by URL (or R2 key), ETag and byte range, in the Cache API
   * (`caches.default` in Workers), else IndexedDB, else (Node) the process's
   * memory. A re-open then costs one revalidating request per object.
   * `true` = `{bytes: 268435456}` (256 MiB, least recently used evicted
   * first). Only for a URL, `Atlas.fromUrl` or `Atlas.fromR2`; default off.
   */
  persist?: boolean | PersistOptions;
}

export interface PersistOptions {
  /** The most bytes kept, across every collection of the page (default 256 MiB). */
  bytes?: number;
}

export class Atlas {
  private constructor();
  /** A URL of the collection's directory, or its two objects as sources. */
  static open(target: string | URL | { data: Source; mask?: Source | null }, options?: OpenOptions): Promise<Atlas>;
  static fromUrl(url: string | URL, options?: UrlOptions): Source;
  static fromR2(bucket: R2BucketLike, key: string, options?: { maxConcurrency?: number }): Source;
  static fromBlob(blob: Blob): Source;
  static fromBytes(bytes: Uint8Array): Source;

  readonly datasetCount: number;
  readonly totalDatasets: number;
  readonly deletedCount: number;
  readonly createdUnixMs: number;
  readonly codec: "zstd" | "lz4" | "none";
  readonly formatVersion: number;
  readonly containerBytes: number;
  readonly cachedBytes: number;

  listDatasets(): string[];
  listArrays(): string[];
  hasDataset(name: string): boolean;
  /** Throws `AtlasError` with code `DatasetNotFound`. */
  dataset(name: string): Dataset;
  /**
   * One array over every live dataset, whatever its dtype, merged as
   * atlas-rust 0.17.2 merges them (docs/read-path.md). Each bound is typed as
   * the dataset it came from gives it; `null` when no live dataset holds it.
   */
  arrayStats(array: string, options?: CallOptions): Promise<Stats | null>;
  arrayStatsByDataset(array: string, options?: CallOptions): Promise<DatasetStats[]>;
  attributesByDataset(array: string | null, key: string, options?: CallOptions): Promise<Record<string, AttrValue>>;
  /**
   * One array (or window) across datasets, stacked along a new first axis.
   * Throws `InvalidArgument` naming the datasets that do not stack (another
   * dtype or shape) unless `skip`; `DatasetNotFound` for an unknown listed name.
   */
  readAcross(array: string, options?: ReadAcrossOptions): Promise<ReadAcrossResult>;
  /**
   * One array of every live dataset that declares it (or of `datasets`),
   * `batch` datasets per `readAcross` (default 256), so memory holds one
   * batch however many datasets there are.
   */
  iterate(array: string, options?: IterateOptions): AsyncIterableIterator<IteratedArray>;
  /**
   * Resolves when every range `persist` keeps has been written to its store
   * (at once without `persist`). In a Worker, give it to `ctx.waitUntil`.
   */
  flush(): Promise<void>;
  /** Frees the collection's memory now; later calls throw. */
  close(): void;
}

export interface IterateOptions {
  /** Only these datasets, in this order; each must declare the array. */
  datasets?: string[];
  /** Datasets per read (default 256). */
  batch?: number;
  signal?: AbortSignal;
}

/** One dataset's array, as `iterate` yields it. */
export interface IteratedArray {
  name: string;
  shape: number[];
  data: ArrayValues;
}

/** What every metadata call takes: `signal` aborts it (code `Aborted`). */
export interface CallOptions {
  signal?: AbortSignal;
}

export class Dataset {
  private constructor();
  readonly name: string;
  readonly ordinal: number;
  readonly schema: Schema;
  listArrays(): string[];
  layout(array: string, options?: CallOptions): Promise<Layout>;
  stats(array: string, options?: CallOptions): Promise<Stats | null>;
  attributes(options?: CallOptions): Promise<Record<string, AttrValue>>;
  arrayAttributes(array: string, options?: CallOptions): Promise<Record<string, AttrValue>>;
  read(array: string, options?: ReadOptions): Promise<ReadResult>;
}
