// The Node heap after garbage collection, for the tests that hold memory
// flat (call-residue.test.mjs, iterate-memory.test.mjs).
import { setImmediate } from "node:timers/promises";
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");

/**
 * The least `heapUsed` of four forced collections: a collector slow to
 * finish on a busy machine does not count as growth.
 */
export async function settledHeap() {
  let least = Infinity;
  for (let i = 0; i < 4; i++) {
    await setImmediate(); // lets finalization callbacks run between collections
    gc();
    least = Math.min(least, process.memoryUsage().heapUsed);
  }
  return least;
}
