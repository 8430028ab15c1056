// One measurement in a fresh Node process: one reader, one workload.
//
//   node reader.mjs READER WORKLOAD BASE_URL WORKLOAD_DIR
//
// READER: atlas-wasm | zarrita | hyparquet. WORKLOAD: w1 | w1-probe | w2 | w2-each | w3
// (w1-probe: atlas-wasm opening with a 512 KiB first read; w2-each: atlas-wasm
// reading the datasets one call each, all at once; w1-memory and w2-memory:
// atlas-wasm's catalogue and readAcross from the collection's bytes in
// memory, no HTTP, so that the CPU is what is timed; BASE_URL is not used).
// Prints one JSON line: wall ms from the open to the answer (a Float32Array,
// or the catalogue as text), the checksum of the answer, taken after the
// clock stops (make_workload.py takes the same sum), peak RSS in KiB, and
// for atlas-wasm the ms its wasm module took to compile (outside `ms`).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { weighted } from "./stats.mjs";

const [reader, workload, base, dir] = process.argv.slice(2);
const want = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
const [rows, cols] = want.shape;
// Read before any clock starts.
const localBytes = workload.endsWith("-memory") ? readFileSync(join(dir, "atlas", "data.atlas")) : null;

const floatsSum = (f32) => weighted(new Uint32Array(f32.buffer, f32.byteOffset, f32.length));
const textSum = (text) => weighted(new TextEncoder().encode(text));
const catalogue = (names, attr) => names.map((n, i) => `${n}=${attr(n, i)}\n`).join("");

const readers = {
  async "atlas-wasm"() {
    const entry = process.env.ATLAS_WASM_ENTRY ?? new URL("../../js/dist/node.js", import.meta.url).href;
    const { Atlas } = await import(entry.startsWith("file:") ? entry : pathToFileURL(entry).href);
    // Compile the module before the clock starts: an empty object fails to
    // open after init. ATLAS_BENCH_COLD=1 leaves it to the first open, on the
    // clock, as a fresh page or process meets it.
    const t0 = performance.now();
    if (!process.env.ATLAS_BENCH_COLD) await Atlas.open({ data: Atlas.fromBytes(new Uint8Array(0)) }).catch(() => {});
    const initMs = performance.now() - t0;
    const url = `${base}/atlas/`;
    // ATLAS_BENCH_WORKERS sets decodeWorkers (unset: the package's default).
    const workers = process.env.ATLAS_BENCH_WORKERS;
    const defaults = workers === undefined ? {} : { decodeWorkers: Number(workers) };
    return {
      initMs,
      async w1(options = {}) {
        const atlas = await Atlas.open(url, { ...defaults, ...options });
        const names = atlas.listDatasets();
        const stations = await atlas.attributesByDataset(null, want.attribute);
        return catalogue(names, (n) => stations[n]);
      },
      // The catalogue with a first read large enough for the dataset attributes.
      "w1-probe"() {
        return this.w1({ tailProbeBytes: 512 << 10 });
      },
      async w2() {
        const atlas = await Atlas.open(url, defaults);
        const { data, shape } = await atlas.readAcross(want.array);
        if (shape[0] !== want.datasets) throw new Error(`readAcross stacked ${shape[0]} datasets`);
        return data;
      },
      async "w1-memory"() {
        const atlas = await Atlas.open({ data: Atlas.fromBytes(localBytes) });
        const names = atlas.listDatasets();
        const stations = await atlas.attributesByDataset(null, want.attribute);
        return catalogue(names, (n) => stations[n]);
      },
      async "w2-memory"() {
        const atlas = await Atlas.open({ data: Atlas.fromBytes(localBytes) });
        const { data } = await atlas.readAcross(want.array);
        return data;
      },
      async "w2-each"() {
        const atlas = await Atlas.open(url, defaults);
        const names = atlas.listDatasets();
        const out = new Float32Array(names.length * rows * cols);
        await Promise.all(
          names.map(async (n, i) => {
            const { data } = await atlas.dataset(n).read(want.array);
            out.set(data, i * rows * cols);
          }),
        );
        return out;
      },
      async w3() {
        const atlas = await Atlas.open(url, defaults);
        const { data } = await atlas.dataset(want.w3_dataset).read(want.array, { start: want.w3_start, shape: want.w3_shape });
        return data;
      },
    };
  },

  async zarrita() {
    const zarr = await import("zarrita");
    // Suffix requests read a shard's index in one request (no HEAD first).
    const open = () => zarr.open.v3(zarr.withRangeCoalescing(new zarr.FetchStore(`${base}/zarr`, { useSuffixRequest: true })), { kind: "array" });
    return {
      async w1() {
        const array = await open();
        const { datasets, station } = array.attrs;
        return catalogue(datasets, (_, i) => station[i]);
      },
      async w2() {
        const array = await open();
        const { data } = await zarr.get(array, null);
        return data;
      },
      async w3() {
        const array = await open();
        const names = array.attrs.datasets;
        const [r, c] = want.w3_start;
        const [h, w] = want.w3_shape;
        const { data } = await zarr.get(array, [names.indexOf(want.w3_dataset), zarr.slice(r, r + h), zarr.slice(c, c + w)]);
        return data;
      },
    };
  },

  async hyparquet() {
    const { asyncBufferFromUrl, parquetMetadataAsync, parquetRead } = await import("hyparquet");
    const { compressors } = await import("hyparquet-compressors");
    const url = `${base}/workload.parquet`;
    const rowsOf = async (columns, rowStart, rowEnd) => {
      const file = await asyncBufferFromUrl({ url });
      const metadata = await parquetMetadataAsync(file);
      let out;
      await parquetRead({ file, metadata, columns, rowStart, rowEnd, compressors, onComplete: (r) => (out = r) });
      return out;
    };
    return {
      async w1() {
        const table = await rowsOf(["name", "station"]);
        return table.map(([n, s]) => `${n}=${s}\n`).join("");
      },
      async w2() {
        const table = await rowsOf(["temperature"]);
        const out = new Float32Array(table.length * rows * cols);
        table.forEach(([values], i) => out.set(values, i * rows * cols));
        return out;
      },
      async w3() {
        // A row is the unit parquet reads: fetch the dataset's row, cut the window.
        const names = (await rowsOf(["name"])).map(([n]) => n);
        const row = names.indexOf(want.w3_dataset);
        const [[values]] = await rowsOf(["temperature"], row, row + 1);
        const [r, c] = want.w3_start;
        const [h, w] = want.w3_shape;
        const out = new Float32Array(h * w);
        for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out[y * w + x] = values[(r + y) * cols + c + x];
        return out;
      },
    };
  },
};

const make = readers[reader];
if (!make) throw new Error(`no reader ${reader}`);
const cases = await make();
if (!cases[workload]) throw new Error(`${reader} has no workload ${workload}`);
const started = performance.now();
const answer = await cases[workload]();
const ms = performance.now() - started;
// Checked after the clock stops: verifying is not part of the read.
const checksum = typeof answer === "string" ? textSum(answer) : floatsSum(answer);
// VmHWM, not getrusage's maxRSS: Linux carries maxRSS over from the parent
// across fork and exec, so every child would report at least the server's RSS.
const rssKb = Number(/VmHWM:\s*(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
console.log(JSON.stringify({ ms, checksum, rssKb, initMs: cases.initMs }));
