// A Worker that serves one ATLAS collection from an R2 bucket as JSON.
//
//   GET /datasets                                  names of datasets and arrays
//   GET /read?dataset=D&array=A[&start=1,2&shape=3,4]   a window (or all) of one array
//   GET /stats?array=A                             statistics over every dataset
//
// The collection lives at `${COLLECTION}/data.atlas` (and, optionally,
// `${COLLECTION}/deleted.mask`) in the COLLECTIONS bucket. Each answer says
// in `X-R2-Gets` how many R2 reads it cost.
import { Atlas, AtlasError } from "atlas-wasm";

// The open collection is kept per isolate as a resolved value, never as a
// promise: a promise made in one request cannot be awaited in another.
let opened;
let gets = 0;

export default {
  async fetch(request, env) {
    const before = gets;
    const answer = await route(new URL(request.url), env).catch(failure);
    answer.headers.set("X-R2-Gets", String(gets - before));
    return answer;
  },
};

async function route(url, env) {
  const atlas = await collection(env);
  const q = url.searchParams;
  switch (url.pathname) {
    case "/datasets":
      return json({ datasets: atlas.listDatasets(), arrays: atlas.listArrays() });
    case "/read": {
      const axes = (key) => q.get(key)?.split(",").map(Number);
      const read = await atlas.dataset(q.get("dataset") ?? "").read(q.get("array") ?? "", { start: axes("start"), shape: axes("shape") });
      return json({ dtype: read.dtype, shape: read.shape, data: Array.from(read.data) });
    }
    case "/stats":
      return json(await atlas.arrayStats(q.get("array") ?? ""));
    default:
      return json({ routes: ["/datasets", "/read?dataset=&array=[&start=&shape=]", "/stats?array="] }, 404);
  }
}

async function collection(env) {
  if (!opened) {
    const bucket = metered(env.COLLECTIONS);
    const prefix = env.COLLECTION ?? "collection";
    opened = await Atlas.open({
      data: Atlas.fromR2(bucket, `${prefix}/data.atlas`),
      mask: Atlas.fromR2(bucket, `${prefix}/deleted.mask`),
    });
  }
  return opened;
}

/** The bucket, counting reads. */
function metered(bucket) {
  return {
    get(key, options) {
      gets++;
      return bucket.get(key, options);
    },
  };
}

function failure(error) {
  if (!(error instanceof AtlasError)) throw error;
  const status = /NotFound$/.test(error.code) ? 404 : error.code === "OutOfBounds" || error.code === "InvalidArgument" ? 400 : 500;
  return json({ code: error.code, message: error.message }, status);
}

/** JSON with BigInts as strings and bytes as arrays. */
function json(body, status = 200) {
  const text = JSON.stringify(body, (_, v) => (typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Array.from(v) : v));
  return new Response(text, { status, headers: { "Content-Type": "application/json" } });
}
