// The Atria entry (atlas-wasm/atria) as a TypeScript user writes it,
// compiled with app.ts under both tsconfigs (bundler, node16). Each
// `expectType` fails the build if atria.d.ts gives the value another type;
// each `@ts-expect-error` fails it if atria.d.ts accepts what it must refuse.
// Never run.
import {
  AtriaCache,
  AtriaError,
  AtriaSplit,
  ParquetFile,
  type AtriaCheck,
  type AtriaColumn,
  type AtriaDefect,
  type AtriaErrorCode,
  type AtriaRow,
  type AtriaSample,
  type AtriaStore,
  type AtriaValue,
  type NumpyValue,
  type R2ListingBucketLike,
} from "atlas-wasm/atria";
import { Atlas, type R2BucketLike } from "atlas-wasm";

function expectType<T>() {
  return <U>(value: U, ..._exactly: Equal<T, U> extends true ? [] : ["the declared type differs"]): void => void value;
}
type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

export async function atria(bucket: R2BucketLike, listing: R2ListingBucketLike, bytes: Uint8Array): Promise<void> {
  const controller = new AbortController();
  const signal = controller.signal;

  // Opening: a URL (with the HTTP options), a store of sources, R2.
  const byUrl: AtriaCache = await AtriaCache.open("https://host/storage/docimg_delta", { signal, headers: { Authorization: "Bearer t" }, maxConcurrency: 4 });
  const byUrlObject: AtriaCache = await AtriaCache.open(new URL("https://host/storage/docimg_delta/"));
  const store: AtriaStore = {
    source: (relativePath: string) => (relativePath.endsWith(".tar") ? Atlas.fromBytes(bytes) : null),
    list: async (dir: string) => (dir === "" ? ["delta", "shards"] : null),
  };
  const byStore: AtriaCache = await AtriaCache.open(store);
  const byR2: AtriaCache = await AtriaCache.open(AtriaCache.fromR2(listing, "storage/docimg_delta"));
  const byR2Unlisted: AtriaStore = AtriaCache.fromR2(bucket, "storage/docimg_delta", { maxConcurrency: 6 });
  void [byUrlObject, byStore, byR2, byR2Unlisted];
  // @ts-expect-error a number is no target
  void AtriaCache.open(42);
  // @ts-expect-error a store's source takes a path and answers a source
  void AtriaCache.open({ source: (path: string) => path });
  // @ts-expect-error AtriaCache is made by AtriaCache.open only
  void new AtriaCache();

  const cache = byUrl;
  expectType<"deltalake" | "msgpack">()(cache.backend);
  expectType<string[]>()(cache.splits);
  const split: AtriaSplit = await cache.split("train", { signal });
  expectType<string>()(split.name);
  expectType<number>()(split.numRows);
  const columns: readonly AtriaColumn[] = split.columns;
  expectType<string>()(columns[0].name);
  expectType<string>()(columns[0].type);

  // Rows, content, checks; every call takes a signal.
  const row: AtriaRow = await split.row(0, { signal });
  const value: AtriaValue = row["image__file_path"];
  if (typeof value === "string") expectType<string>()(value);
  const pixels = row["pixels"] as NumpyValue;
  expectType<string>()(pixels.dtype);
  expectType<number[]>()(pixels.shape);
  if (pixels.data instanceof Uint8Array) expectType<Uint8Array>()(pixels.data);
  expectType<Uint8Array>()(await split.content(0, "image", { signal }));
  const check: AtriaCheck = await split.check(0, "image", { signal });
  expectType<string>()(check.pointer);
  expectType<boolean>()(check.ok);
  expectType<boolean>()(check.recovered);
  expectType<AtriaDefect | null>()(check.defect);
  expectType<"content" | "field" | null>()(check.naming);
  expectType<"verbatim" | "dots" | "dots-slashes" | "dots-slashes-hash" | null>()(check.keyConvention);
  if (check.defect?.kind === "OtherMember") {
    expectType<string>()(check.defect.name);
    expectType<number>()(check.defect.size);
  }
  if (check.defect?.kind === "NoHeader") expectType<string>()(check.defect.found);
  if (check.member) {
    expectType<string>()(check.member.shard);
    expectType<string>()(check.member.name);
    expectType<number>()(check.member.offset);
    expectType<number>()(check.member.size);
  }
  for await (const each of split.rows({ start: 10, signal })) expectType<AtriaRow>()(each);

  // Pointers from elsewhere than a row, and a shard's samples.
  const pointer = "shards/train/000000-000001.tar?offset=1536&length=37";
  expectType<Uint8Array>()(await cache.content(pointer, "train-0-000004.json", { signal }));
  expectType<AtriaCheck>()(await cache.check(pointer, "train-0-000004.json"));
  const samples: AtriaSample[] = await cache.samples("shards/train/000000-000001.tar", { signal });
  expectType<string>()(samples[0].key);
  expectType<{ name: string; offset: number; size: number }[]>()(samples[0].members);
  // @ts-expect-error content takes the member's name too
  void cache.content(pointer);
  // @ts-expect-error a row index is a number
  void split.row("0");

  // Errors, by code.
  try {
    await split.content(0, "image");
  } catch (error) {
    if (error instanceof AtriaError) {
      expectType<"AtriaError">()(error.name);
      expectType<AtriaErrorCode>()(error.code);
      expectType<number | undefined>()(error.status);
      switch (error.code) {
        case "BadPointer":
        case "NotFound":
        case "UnsupportedProtocol":
        case "Corrupt":
        case "RangeNotSupported":
        case "ContentEncoded":
        case "HttpStatus":
        case "Network":
        case "Timeout":
        case "ObjectChanged":
        case "Io":
        case "OutOfBounds":
        case "TooLarge":
        case "Aborted":
        case "InvalidArgument":
        case "Internal":
          break;
        default:
          // Compiles only while the cases above name every code.
          expectType<never>()(error.code);
      }
      // @ts-expect-error only ATLAS collections raise this one
      const atlasOnly: AtriaErrorCode = "DatasetNotFound";
      void atlasOnly;
    }
  }
  void new AtriaError("why", "BadPointer");

  // A HuggingFace parquet file by URL, or any source.
  const parquet: ParquetFile = await ParquetFile.open("https://huggingface.co/datasets/x/resolve/main/train.parquet", { signal });
  const fromBytes: ParquetFile = await ParquetFile.open(Atlas.fromBytes(bytes));
  expectType<number>()(parquet.numRows);
  expectType<readonly number[]>()(fromBytes.rowGroups);
  expectType<readonly AtriaColumn[]>()(parquet.columns);
  const group: AtriaRow[] = await parquet.readRowGroup(0, { columns: ["text", "label"], signal });
  const one: AtriaRow = await parquet.row(3);
  for await (const row of parquet.rows({ columns: ["text"] })) void row;
  // @ts-expect-error columns are names
  await parquet.readRowGroup(0, { columns: [1] });
  void group;
  void one;
}
