// Every part of the public API as a TypeScript user writes it, compiled with
// `tsc --strict --noEmit` under moduleResolution "bundler" (with the DOM
// library) and "node16" (Node's types only). Each `expectType` fails the
// build if index.d.ts gives the value another type; each `@ts-expect-error`
// fails it if index.d.ts accepts what it must refuse. Never run.
import {
  Atlas,
  AtlasError,
  Dataset,
  type ArrayValues,
  type AtlasErrorCode,
  type AttrValue,
  type CallOptions,
  type DatasetStats,
  type DType,
  type Layout,
  type OpenOptions,
  type PersistOptions,
  type Progress,
  type R2BucketLike,
  type ReadAcrossOptions,
  type ReadAcrossResult,
  type ReadOptions,
  type ReadResult,
  type ScalarValue,
  type Schema,
  type SkippedDataset,
  type Source,
  type Stats,
  type UrlOptions,
} from "atlas-wasm";

/** `expectType<T>()(value)` compiles only when `value` is exactly of type `T`. */
function expectType<T>() {
  return <U>(value: U, ..._exactly: Equal<T, U> extends true ? [] : ["the declared type differs"]): void => void value;
}
type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

export async function everything(bucket: R2BucketLike, bytes: Uint8Array, blob: Blob): Promise<void> {
  const controller = new AbortController();
  const progress = (p: Progress): void => {
    expectType<number>()(p.loaded);
    expectType<number>()(p.total);
  };

  // Sources.
  const url: UrlOptions = {
    headers: { Authorization: "Bearer token" },
    fetch: globalThis.fetch,
    maxConcurrency: 4,
    retries: 2,
    timeout: 30_000,
  };
  const fromUrl: Source = Atlas.fromUrl("https://example.org/c/data.atlas", url);
  const fromR2: Source = Atlas.fromR2(bucket, "c/data.atlas", { maxConcurrency: 6 });
  const fromBlob: Source = Atlas.fromBlob(blob);
  const fromBytes: Source = Atlas.fromBytes(bytes);
  const own: Source = {
    size: async () => 1024,
    read: async (offset: number, length: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      return new Uint8Array(length + offset * 0);
    },
    readTail: async (length: number) => ({ bytes: new Uint8Array(length), size: 1024 }),
    describe: () => "my source",
  };
  const sized: Source = { size: 10, read: async (_o, length) => new ArrayBuffer(length) };
  // @ts-expect-error a source answers bytes
  const wrongAnswer: Source = { size: 10, read: async () => "bytes" };
  void wrongAnswer;
  void [fromUrl, fromR2, fromBlob, fromBytes, sized];

  // Opening, with every option.
  const options: OpenOptions = {
    ...url,
    signal: controller.signal,
    cacheBytes: 32 << 20,
    coalesceBytes: 4 << 20,
    maxMemory: 64 << 20,
    tailProbeBytes: 512 << 10,
    decodeWorkers: 0,
    persist: true,
  };
  const byUrl: Atlas = await Atlas.open("https://example.org/c/", options);
  const capped: PersistOptions = { bytes: 64 << 20 };
  const kept: Atlas = await Atlas.open({ data: fromR2, mask: fromR2 }, { persist: capped });
  const flushed: Promise<void> = kept.flush();
  void flushed;
  // @ts-expect-error persist is true, false or {bytes}
  void Atlas.open("https://example.org/c/", { persist: 5 });
  const byUrlObject: Atlas = await Atlas.open(new URL("https://example.org/c/"));
  const bySources: Atlas = await Atlas.open({ data: own, mask: null });
  const withMask: Atlas = await Atlas.open({ data: fromBytes, mask: fromBlob }, { decodeWorkers: 2 });
  void [byUrlObject, bySources, withMask];
  // @ts-expect-error a number is no target
  void Atlas.open(42);
  // @ts-expect-error decodeWorkers is a number
  void Atlas.open("https://example.org/c/", { decodeWorkers: "4" });
  // @ts-expect-error Atlas is made by Atlas.open only
  void new Atlas();

  // The collection.
  const atlas = byUrl;
  expectType<number>()(atlas.datasetCount);
  expectType<number>()(atlas.totalDatasets);
  expectType<number>()(atlas.deletedCount);
  expectType<number>()(atlas.createdUnixMs);
  expectType<"zstd" | "lz4" | "none">()(atlas.codec);
  expectType<number>()(atlas.formatVersion);
  expectType<number>()(atlas.containerBytes);
  expectType<number>()(atlas.cachedBytes);
  expectType<string[]>()(atlas.listDatasets());
  expectType<string[]>()(atlas.listArrays());
  expectType<boolean>()(atlas.hasDataset("grid.nc"));
  expectType<Stats | null>()(await atlas.arrayStats("temperature"));
  const each: DatasetStats[] = await atlas.arrayStatsByDataset("temperature");
  expectType<string>()(each[0].dataset);
  expectType<ScalarValue | null>()(each[0].min);
  expectType<number>()(each[0].nullCount);
  expectType<Record<string, AttrValue>>()(await atlas.attributesByDataset(null, "title"));
  expectType<Record<string, AttrValue>>()(await atlas.attributesByDataset("temperature", "units"));
  // One array of every dataset, a batch at a time.
  for await (const part of atlas.iterate("temperature", { batch: 100, signal: controller.signal })) {
    expectType<string>()(part.name);
    expectType<number[]>()(part.shape);
    expectType<ArrayValues>()(part.data);
  }
  // Every metadata call takes a signal.
  const call: CallOptions = { signal: controller.signal };
  expectType<Stats | null>()(await atlas.arrayStats("temperature", call));
  expectType<Record<string, AttrValue>>()(await atlas.attributesByDataset(null, "title", call));

  // Across datasets, with every option.
  const acrossOptions: ReadAcrossOptions = {
    datasets: ["a.nc", "b.nc"],
    start: [0, 0],
    shape: new Uint32Array([1, 5]),
    skip: true,
    signal: controller.signal,
    onProgress: progress,
  };
  const across: ReadAcrossResult = await atlas.readAcross("temperature", acrossOptions);
  expectType<DType>()(across.dtype);
  expectType<string[]>()(across.datasets);
  expectType<number[]>()(across.shape);
  expectType<ArrayValues>()(across.data);
  const skipped: SkippedDataset[] | undefined = across.skipped;
  if (skipped) {
    expectType<string>()(skipped[0].dataset);
    expectType<DType>()(skipped[0].dtype);
    expectType<number[]>()(skipped[0].shape);
  }
  await atlas.readAcross("temperature");

  // One dataset.
  const dataset: Dataset = atlas.dataset("grid.nc");
  expectType<string>()(dataset.name);
  expectType<number>()(dataset.ordinal);
  const schema: Schema = dataset.schema;
  expectType<string>()(schema.arrays[0].name);
  expectType<DType>()(schema.arrays[0].dtype);
  expectType<{ key: string; dtype: DType }[]>()(schema.arrays[0].attributes);
  expectType<{ key: string; dtype: DType }[]>()(schema.attributes);
  expectType<string[]>()(dataset.listArrays());
  const layout: Layout = await dataset.layout("temperature");
  expectType<number[]>()(layout.shape);
  expectType<number[]>()(layout.chunkShape);
  expectType<string[]>()(layout.dimensions);
  expectType<ScalarValue | null>()(layout.fillValue);
  expectType<Stats | null>()(await dataset.stats("temperature"));
  expectType<Record<string, AttrValue>>()(await dataset.attributes());
  expectType<Record<string, AttrValue>>()(await dataset.arrayAttributes("temperature"));
  expectType<Layout>()(await dataset.layout("temperature", call));
  expectType<Record<string, AttrValue>>()(await dataset.attributes(call));
  const readOptions: ReadOptions = { start: [0, 1, 2], shape: [1, 2, 3], signal: controller.signal, onProgress: progress };
  const read: ReadResult = await dataset.read("temperature", readOptions);
  expectType<DType>()(read.dtype);
  expectType<number[]>()(read.shape);
  expectType<ArrayValues>()(read.data);
  if (read.data instanceof Float32Array) expectType<Float32Array>()(read.data);
  if (read.data instanceof BigInt64Array) expectType<bigint>()(read.data[0]);
  if (Array.isArray(read.data)) expectType<string[] | Uint8Array[]>()(read.data);
  // @ts-expect-error start is an array of numbers
  void dataset.read("temperature", { start: "0,1" });
  const dtypes: DType[] = ["bool", "int8", "uint64", "float32", "string", "binary", "timestamp_ns", "list<int32>", "fixed_size_list<float32>"];
  void dtypes;

  // Errors, by code.
  try {
    atlas.dataset("missing");
  } catch (error) {
    if (error instanceof AtlasError) {
      expectType<"AtlasError">()(error.name);
      expectType<AtlasErrorCode>()(error.code);
      expectType<number | undefined>()(error.status);
      const name: string = error.message;
      void name;
      switch (error.code) {
        case "NotAnAtlasCollection":
        case "UnsupportedVersion":
        case "CorruptCollection":
        case "CorruptMask":
        case "DatasetNotFound":
        case "ArrayNotFound":
        case "DTypeMismatch":
        case "OutOfBounds":
        case "Io":
        case "RangeNotSupported":
        case "ContentEncoded":
        case "HttpStatus":
        case "Network":
        case "Timeout":
        case "NotFound":
        case "ObjectChanged":
        case "Aborted":
        case "TooLarge":
        case "InvalidArgument":
        case "Internal":
        case "BadPointer":
        case "UnsupportedProtocol":
        case "Corrupt":
          break;
        default:
          // Compiles only while the cases above name every code.
          expectType<never>()(error.code);
      }
      // @ts-expect-error not a code
      const wrong: AtlasErrorCode = "Unknown";
      void wrong;
    }
  }
  const made = new AtlasError("why", "HttpStatus", { status: 503, cause: new Error("upstream") });
  void made;
  atlas.close();
}
