// What writing a fresh answer costs: W2's 65 MB copied part by part into a
// new typed array, against the same copies into one whose pages were touched
// first. The difference is the page faults of first use, which the copies
// into every large answer pay (atlas-wasm's, zarrita's alike).
//
//   node benches/js/page_faults.mjs [--runs 3]
const argv = process.argv.slice(2);
const runs = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : 3;
const ANSWER = 1000 * 90 * 180 * 4;
const PART = 90 * 180 * 4;
const block = new Uint8Array(8 << 20).fill(7);
const copyParts = (into) => {
  const started = performance.now();
  for (let at = 0; at < ANSWER; at += PART) into.set(block.subarray(0, PART), at);
  return performance.now() - started;
};
for (let run = 0; run < runs; run++) {
  const fresh = copyParts(new Uint8Array(ANSWER));
  const touched = new Uint8Array(ANSWER);
  let started = performance.now();
  for (let i = 0; i < ANSWER; i += 4096) touched[i] = 0;
  const touching = performance.now() - started;
  console.log(JSON.stringify({ freshMs: +fresh.toFixed(1), touchMs: +touching.toFixed(1), touchedMs: +copyParts(touched).toFixed(1) }));
}
