// The soak of per-call residue, for Node (call-residue.test.mjs) and
// Chromium (call-residue-browser.test.mjs, where this file is loaded from a
// Blob): plain JavaScript, no Node modules. The runtime hands in `nextTurn()`
// (a promise that settles on a later task) and `settledHeap()` (the least
// JS heap in use over a few forced collections).
//
// A signal that never fired once kept ~0.8 KB of closures per call alive for
// good (the abort promise's JsFuture, dropped before its promise settled):
// 8 MB per 10,000 calls, where BOUND allows 1 MiB. Each kind of call runs
// CALLS times with a fresh AbortController: half against a source that
// answers (the signal never fires), half against one that never answers
// (each call is aborted while it waits). The heap is read after forced
// collections, before and after, once a first pass of the same calls has
// warmed up the code and the caches; only what calls leave behind grows it,
// however fast or loaded the machine is.

export const CALLS = 10_000;
// One pass of the same calls first, so the caches hold what the measured
// pass reads (every dataset's block, every wrapper made once).
const WARM_UP = CALLS;
export const BOUND = 1024 * 1024;

/** A source over `bytes` that answers on a later turn, or never once `hang.on`. */
export function bytesSource(bytes, hang, nextTurn) {
  return {
    size: bytes.length,
    read: async (offset, length, signal) => {
      if (hang.on) {
        return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
      }
      await nextTurn();
      return bytes.subarray(offset, offset + length);
    },
  };
}

/**
 * Runs `call(i, signal)` CALLS times after WARM_UP: even `i` on `live`
 * (signal never fired), odd `i` on `hung` (aborted once it waits); throws if
 * a hung call was not aborted. Answers the bytes the heap grew by.
 */
async function soak(label, live, hung, { nextTurn, settledHeap }) {
  const once = async (i) => {
    const controller = new AbortController();
    if (i % 2 === 0) return live(i, controller.signal);
    const pending = hung(i, controller.signal);
    await nextTurn();
    controller.abort();
    const code = await pending.then(
      () => "answered",
      (e) => e.code,
    );
    if (code !== "Aborted") throw new Error(`${label}: call ${i} was not aborted (${code})`);
  };
  for (let i = 0; i < WARM_UP; i++) await once(i);
  const before = await settledHeap();
  for (let i = 0; i < CALLS; i++) await once(i);
  return (await settledHeap()) - before;
}

/**
 * `read`, `readAcross` and `stats` (a metadata call) on the `temperature`
 * array of the ten_thousand_datasets collection, `bytes`: `{read, readAcross,
 * stats}`, each the bytes the heap grew by over CALLS calls.
 */
export async function soakCollection(Atlas, bytes, runtime) {
  const hang = { on: false };
  const live = await Atlas.open({ data: bytesSource(bytes, { on: false }, runtime.nextTurn) }, { decodeWorkers: 0 });
  const hung = await Atlas.open({ data: bytesSource(bytes, hang, runtime.nextTurn) }, { decodeWorkers: 0 });
  hang.on = true; // opened; every read from now on waits for ever
  const names = live.listDatasets();
  const name = (i) => names[i % names.length];
  const some = (i) => [name(i), name(i + 7), name(i + 101)];
  const grown = {};
  grown.read = await soak(
    "read",
    (i, signal) => live.dataset(name(i)).read("temperature", { signal }),
    (i, signal) => hung.dataset(name(i)).read("temperature", { signal }),
    runtime,
  );
  grown.readAcross = await soak(
    "readAcross",
    (i, signal) => live.readAcross("temperature", { datasets: some(i), signal }),
    (i, signal) => hung.readAcross("temperature", { datasets: some(i), signal }),
    runtime,
  );
  grown.stats = await soak(
    "stats",
    (i, signal) => live.dataset(name(i)).stats("temperature", { signal }),
    (i, signal) => hung.dataset(name(i)).stats("temperature", { signal }),
    runtime,
  );
  live.close();
  hung.close();
  return grown;
}

/**
 * An Atria store over a config directory's `files` (path → bytes) and
 * `dirs` (directory → sorted names; "" is the top); `hang.on` stops its reads.
 */
export function atriaStore(files, dirs, hang, nextTurn) {
  return {
    source: (path) => (files.has(path) ? bytesSource(files.get(path), hang, nextTurn) : null),
    list: async (dir) => dirs.get(dir) ?? [],
  };
}

/** `split.row(i)` of the msgpack cache's split `splitName`: the bytes the heap grew by over CALLS calls. */
export async function soakAtriaRow(AtriaCache, store, splitName, runtime) {
  const hang = { on: false };
  const live = await (await AtriaCache.open(store({ on: false }))).split(splitName);
  const hung = await (await AtriaCache.open(store(hang))).split(splitName);
  hang.on = true;
  const rows = live.numRows;
  return soak(
    "Atria row",
    (i, signal) => live.row(i % rows, { signal }),
    (i, signal) => hung.row(i % rows, { signal }),
    runtime,
  );
}
