// Types of the entry atlas-wasm/atria. The implementation is js/src/atria.js
// over the wasm handles of bindings/atria; docs/js-api.md ("Atria caches")
// and docs/atria.md explain each call.
import type { AtlasErrorCode, ArrayValues, R2BucketLike, Source, UrlOptions } from "./index.js";

/**
 * The codes an `AtriaError` carries: the package's codes less those that
 * only an ATLAS collection can raise.
 */
export type AtriaErrorCode = Exclude<
  AtlasErrorCode,
  | "NotAnAtlasCollection"
  | "UnsupportedVersion"
  | "CorruptCollection"
  | "CorruptMask"
  | "DatasetNotFound"
  | "ArrayNotFound"
  | "DTypeMismatch"
>;

export class AtriaError extends Error {
  constructor(message: string, code: AtriaErrorCode, options?: { cause?: unknown; status?: number });
  readonly name: "AtriaError";
  readonly code: AtriaErrorCode;
  /** The HTTP status, on `HttpStatus` errors only. */
  readonly status?: number;
}

/** A numpy array or scalar of a record (a scalar has shape `[]`). */
export interface NumpyValue {
  /** numpy's kind and size as the core names them: `uint8`, `float32`, `string`, `binary`, … */
  dtype: string;
  shape: number[];
  /** Elements in C order; bool as 0/1 in a `Uint8Array`, 64-bit integers in `BigInt64Array`s. */
  data: ArrayValues;
}

/**
 * A value of a row or record: msgpack and Delta values as plain JavaScript
 * ones (integers beyond 2^53 as `bigint`, bytes as `Uint8Array`, maps with
 * non-string keys as `Map`), numpy values as `NumpyValue`, extension types
 * as `{extType, data}`.
 */
export type AtriaValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | NumpyValue
  | { extType: number; data: Uint8Array }
  | AtriaValue[]
  | Map<AtriaValue, AtriaValue>
  | { [key: string]: AtriaValue };

export type AtriaRow = { [column: string]: AtriaValue };

export interface AtriaColumn {
  name: string;
  /** Delta's type name (`long`, `string`, …), or for msgpack the first record's kind of value (`int`, `str`, `ndarray<uint8>`, …). */
  type: string;
}

/** Why a pointer (or `data/` path) does not reach what its row expects. */
export type AtriaDefect =
  | { kind: "PastEnd"; message: string }
  | { kind: "Misaligned"; message: string }
  | { kind: "NoHeader"; message: string; found: string }
  | { kind: "OtherMember"; message: string; name: string; size: number }
  | { kind: "NoShard"; message: string }
  | { kind: "SplitMissing"; message: string };

export interface AtriaCheck {
  /** The pointer or path as the row holds it. */
  pointer: string;
  /** True when it reached the expected member (or file). */
  ok: boolean;
  defect: AtriaDefect | null;
  /** True when the member was found by name after the pointer failed. */
  recovered: boolean;
  /** Where the bytes come from; null when neither verified nor recovered. */
  member: { shard: string; name: string; offset: number; size: number } | null;
  /**
   * The name a split's field was found under: `"content"` for
   * `{key}.{field}__content` (Atria's writer), `"field"` for `{key}.{field}`.
   * Null for inline bytes, `data/` files, and a member name given to `cache.check`.
   */
  naming: "content" | "field" | null;
  /**
   * How the member's key was made from the row, null where `naming` is:
   * `"verbatim"` (the `__key__`/`key` column, or `sample_id`, as written),
   * or, from `sample_id`, the rule an Atria writer used: `"dots"` (`.` → `_`),
   * `"dots-slashes"` (`.` and `/`), `"dots-slashes-hash"` (`.`, `/` and `#`).
   */
  keyConvention: AtriaKeyConvention | null;
}

/** The WebDataset key conventions Atria's writers have used (docs/atria.md). */
export type AtriaKeyConvention = "verbatim" | "dots" | "dots-slashes" | "dots-slashes-hash";

export interface AtriaCallOptions {
  signal?: AbortSignal;
}

export interface AtriaOpenOptions extends UrlOptions {
  signal?: AbortSignal;
}

/** A cache served by your own code: a source per relative path, and a listing if you have one. */
export interface AtriaStore {
  /** The source of `relativePath` (`delta/train/_delta_log/…`, `shards/…`), or null when there is none. */
  source(relativePath: string): Source | null | undefined;
  /** The names directly under `dir` (`""` is the cache's directory); null when it cannot list. */
  list?(dir: string): Promise<string[] | null>;
}

/** An R2 bucket binding that can also list. */
export interface R2ListingBucketLike extends R2BucketLike {
  list(options: { prefix?: string; delimiter?: string; cursor?: string }): Promise<{
    objects: { key: string }[];
    delimitedPrefixes: string[];
    truncated: boolean;
    cursor?: string;
  }>;
}

export class AtriaCache {
  private constructor();
  /** Opens a config directory: its URL, or `{source, list?}`. */
  static open(target: string | URL | AtriaStore, options?: AtriaOpenOptions): Promise<AtriaCache>;
  /** The store of a cache under `prefix` in an R2 bucket (listed, where the binding can). */
  static fromR2(bucket: R2BucketLike | R2ListingBucketLike, prefix?: string, options?: { maxConcurrency?: number }): AtriaStore;

  readonly backend: "deltalake" | "msgpack";
  readonly splits: string[];
  split(name: string, options?: AtriaCallOptions): Promise<AtriaSplit>;

  /** The bytes of TAR member `member` (e.g. `{key}.{field}__content`) behind `pointer`: verified, else recovered by name, else `BadPointer`. */
  content(pointer: string, member: string, options?: AtriaCallOptions): Promise<Uint8Array>;
  /** What resolving `pointer` to `member` finds, never `BadPointer`. */
  check(pointer: string, member: string, options?: AtriaCallOptions): Promise<AtriaCheck>;
  /** A TAR shard's members grouped into WebDataset samples (key: the name up to its first dot). */
  samples(shard: string, options?: AtriaCallOptions): Promise<AtriaSample[]>;
}

export interface AtriaSample {
  key: string;
  members: { name: string; offset: number; size: number }[];
}

export class AtriaSplit {
  private constructor();
  readonly name: string;
  readonly numRows: number;
  readonly columns: readonly AtriaColumn[];
  row(i: number, options?: AtriaCallOptions): Promise<AtriaRow>;
  /** The bytes behind `{field}__file_path` (or `{field}__content`, or the record's own bytes); a TAR pointer's member is `{key}.{field}__content` or `{key}.{field}`. */
  content(i: number, field: string, options?: AtriaCallOptions): Promise<Uint8Array>;
  check(i: number, field: string, options?: AtriaCallOptions): Promise<AtriaCheck>;
  rows(options?: { start?: number; signal?: AbortSignal }): AsyncGenerator<AtriaRow, void, undefined>;
}

/**
 * One parquet file (a HuggingFace dataset's, a Delta data file) by URL or
 * source: the footer in one tail read, row groups by range.
 */
export class ParquetFile {
  private constructor();
  static open(target: string | URL | Source, options?: AtriaOpenOptions): Promise<ParquetFile>;
  readonly numRows: number;
  /** The top-level fields: `type` as "int64", "string", "list<string>", "struct<…>", "timestamp[us]", … */
  readonly columns: readonly AtriaColumn[];
  /** The rows in each row group. */
  readonly rowGroups: readonly number[];
  /** The rows of row group `i`; only `columns`' bytes are read when given. */
  readRowGroup(i: number, options?: { columns?: string[]; signal?: AbortSignal }): Promise<AtriaRow[]>;
  /** Row `i`, reading only its row group. */
  row(i: number, options?: AtriaCallOptions): Promise<AtriaRow>;
  rows(options?: { columns?: string[]; signal?: AbortSignal }): AsyncGenerator<AtriaRow, void, undefined>;
}
