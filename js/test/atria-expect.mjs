// The Atria corpus (tests/atria/make_corpus.sh writes it; js/scripts/test.sh
// exports ATLAS_ATRIA_CORPUS) and its truth, expected.json, for the tests of
// atlas-wasm/atria in Node, Chromium and workerd.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const CORPUS = process.env.ATLAS_ATRIA_CORPUS ?? join(here, "../../target/atria-corpus");

if (!existsSync(join(CORPUS, "expected.json"))) {
  throw new Error(`no Atria corpus in ${CORPUS}: run tests/atria/make_corpus.sh ${CORPUS} (js/scripts/test.sh does)`);
}

const MARK = "\u0000int:";

/**
 * expected.json with every integer beyond 2^53 kept exact, as the decimal
 * string `canonical` gives such an integer (JSON.parse would round it).
 */
export function expectedAtria() {
  const text = readFileSync(join(CORPUS, "expected.json"), "utf8").replace(
    /(?<=[[:,]\s*)(-?\d{16,})(?=\s*[,\]}])/g,
    (digits) => JSON.stringify(MARK + digits),
  );
  return JSON.parse(text, (_key, v) => {
    if (typeof v !== "string" || !v.startsWith(MARK)) return v;
    const n = BigInt(v.slice(MARK.length));
    return Number.isSafeInteger(Number(n)) ? Number(n) : n.toString();
  });
}

/** The records of a msgpack split, in shard order, as expected.json holds them. */
export function msgpackRecords(expected, split) {
  const shards = expected.msgpack[split].shards;
  return Object.keys(shards)
    .sort()
    .flatMap((path) => shards[path].records);
}

/** The config directory of the corpus (`expected.config`). */
export function configDir(expected) {
  return join(CORPUS, expected.config);
}
