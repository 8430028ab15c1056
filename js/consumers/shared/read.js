// What every consumer app does with the atlas-wasm it installed: open the
// every_dtype_zstd fixture, read every array of every dataset (its first
// read starts the decode pool's workers where the runtime has them; each of
// these reads needs one block, which is decoded in place), read one array
// across datasets and provoke one error. The answer is JSON-safe (BigInts and
// non-finite floats as strings, bytes as hex) so that a page, a process or
// a Worker can hand it to the runner, which holds it against the fixture's
// expected.json (check.mjs). run.sh copies this file into each app.
export async function readCollection({ Atlas, AtlasError }, target) {
  const atlas = await Atlas.open(target, { decodeWorkers: 2, cacheBytes: 0 });
  try {
    const readAll = async () => {
      const arrays = {};
      for (const name of atlas.listDatasets()) {
        const dataset = atlas.dataset(name);
        for (const array of dataset.listArrays()) {
          const read = await dataset.read(array);
          arrays[`${name}/${array}`] = { dtype: read.dtype, shape: read.shape, data: Array.from(read.data, plain) };
        }
      }
      return arrays;
    };
    const arrays = await readAll();
    // A page counts the decode workers that came up (page.js): the first
    // read started one; wait for it.
    const ready = globalThis.decodeWorkersReady;
    for (let i = 0; ready && i < 200 && ready() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const across = await atlas.readAcross("int32", { skip: true });
    let error;
    try {
      atlas.dataset("no such dataset");
    } catch (e) {
      error = e instanceof AtlasError ? e.code : `not an AtlasError: ${e}`;
    }
    return {
      datasets: atlas.listDatasets(),
      arrays,
      across: { datasets: across.datasets, shape: across.shape, data: Array.from(across.data, plain), skipped: across.skipped },
      error,
    };
  } finally {
    atlas.close();
  }
}

function plain(value) {
  if (typeof value === "bigint") return String(value);
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (value instanceof Uint8Array) return Array.from(value, (b) => b.toString(16).padStart(2, "0")).join("");
  return value;
}
