// The Atria corpus (tests/atria/make_corpus.sh writes it; js/scripts/test.sh
// exports ATLAS_ATRIA_CORPUS) and its truth, expected.json, for the tests of
// atlas-wasm/atria in Node, Chromium and workerd.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
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

/**
 * What the config directory holds, as plain data a page can take:
 * `{files, dirs}`, every file's path under it and, for each directory
 * ("" the top), its entries' names sorted.
 */
export function configTree(expected) {
  const root = configDir(expected);
  const files = [];
  const dirs = { "": readdirSync(root).sort() };
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = relative(root, join(entry.parentPath ?? entry.path, entry.name)).split(sep).join("/");
    if (entry.isDirectory()) dirs[path] = readdirSync(join(root, path)).sort();
    else files.push(path);
  }
  return { files: files.sort(), dirs };
}

/** The pointer table of the `docs` config (the truth of every TAR pointer). */
export function pointerRows(expected, split) {
  return JSON.parse(readFileSync(join(configDir(expected), "pointers", `${split}.json`), "utf8"));
}

/**
 * What resolving every pointer of the corpus must come to, by split: the
 * fields counted by `naming outcome` (`-` where no naming is reported: a
 * member name given by the caller, a `data/` file, inline bytes), a wrong
 * pointer's outcome naming the defect reported. The Delta train split names
 * members as Atria does (`{key}.{field}__content`), its test split
 * `{key}.{field}`; the bare TAR layout's pointers are resolved by name.
 */
export const COUNTS = {
  pointers: {
    train: { "- verified": 70, "- recovered OtherMember": 21, "- recovered PastEnd": 9 },
    test: { "- verified": 30, "- recovered OtherMember": 9, "- recovered PastEnd": 3 },
  },
  fields: {
    train: {
      "- inline": 8,
      "- verified": 8,
      "- recovered SplitMissing": 8,
      "content verified": 58,
      "content recovered OtherMember": 12,
      "content recovered PastEnd": 6,
      "content recovered NoHeader": 2,
    },
    test: {
      "- inline": 3,
      "- verified": 4,
      "- recovered SplitMissing": 2,
      "field verified": 23,
      "field recovered OtherMember": 6,
      "field recovered PastEnd": 2,
    },
  },
};

function tally(counts, key) {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** `counts` with its keys in `want`'s order, for a deepEqual that shows the difference. */
export function inOrderOf(counts, want) {
  const keys = [...Object.keys(want), ...Object.keys(counts).filter((k) => !(k in want))];
  return Object.fromEntries(keys.map((k) => [k, counts[k] ?? 0]));
}

/**
 * Holds `results` (of `resolvePointers`, or of `resolveFields` with
 * `bySplit`) to the truth of `rows`: right pointers verified, wrong ones
 * recovered from the member expected.json names, byte for byte, with the
 * defect it names and, through a split, the naming it found. Returns the
 * counts by `naming outcome`, as `COUNTS` has them.
 */
export function assertPointers(results, rows, { bySplit = false } = {}) {
  assert.equal(results.length, rows.length);
  const counts = {};
  rows.forEach((row, i) => {
    const got = results[i];
    const { sha256, ...member } = row.expected;
    const at = `${row.pointer} (${row.expected.name})`;
    assert.equal(got.error, undefined, `${at}: ${JSON.stringify(got.error)}`);
    assert.equal(got.sha256, sha256, `${at}: bytes`);
    assert.equal(got.size, member.size, `${at}: size`);
    assert.equal(got.check.pointer, row.pointer);
    assert.deepEqual(got.check.member, member, `${at}: member`);
    assert.equal(got.check.naming, bySplit ? row.naming : null, `${at}: naming`);
    // The corpus's rows key samples by `__key__`: the key as written.
    assert.equal(got.check.keyConvention, got.check.naming ? "verbatim" : null, `${at}: keyConvention`);
    const naming = got.check.naming ?? "-";
    if (row.defect === null) {
      assert.deepEqual([got.check.ok, got.check.recovered, got.check.defect], [true, false, null], at);
      tally(counts, `${naming} verified`);
    } else {
      assert.deepEqual([got.check.ok, got.check.recovered], [false, true], at);
      assert.equal(got.check.defect?.kind, row.reported, `${at}: a ${row.defect} pointer reported as ${JSON.stringify(got.check.defect)}`);
      assert.equal(typeof got.check.defect.message, "string");
      tally(counts, `${naming} recovered ${row.reported}`);
    }
  });
  return counts;
}

/** A pointer that reaches a real member but names one that exists nowhere: not recoverable. */
export function unrecoverable(rows) {
  const good = rows.find((r) => r.defect === null);
  return { pointer: good.pointer, expected: { name: "nowhere-0000.png" }, reaches: good.expected };
}

/** Holds the result of resolving `unrecoverable(rows)`: BadPointer, naming what the pointer reaches. */
export function assertUnrecoverable(result, bad) {
  assert.equal(result.error?.code, "BadPointer", JSON.stringify(result));
  assert.ok(result.error.message.includes(bad.reaches.name), result.error.message);
  assert.deepEqual(result.check, {
    pointer: bad.pointer,
    ok: false,
    defect: result.check.defect,
    recovered: false,
    member: null,
    naming: null,
    keyConvention: null,
  });
  const { kind, name, size } = result.check.defect;
  assert.deepEqual({ kind, name, size }, { kind: "OtherMember", name: bad.reaches.name, size: bad.reaches.size });
}

/** The Delta rows of `split` as expected.json holds them (sorted by `__key__`). */
export function deltaRows(expected, split) {
  return expected.delta[split].rows;
}

/**
 * For the rows a split answered (canonical, in its order): every content
 * field expected.json has a truth for, as `{i, field}` to ask and the row of
 * the pointer table form `assertPointers` holds it to. A field the row keeps
 * inline (`{field}__content`) is expected as those bytes, unchecked.
 */
export function deltaFields(expected, split, rows) {
  const truth = expected.delta[split].content;
  const wanted = [];
  rows.forEach((row, i) => {
    for (const [field, t] of Object.entries(truth[row.__key__] ?? {})) {
      const inline = row[`${field}__content`];
      if (row[`${field}__file_path`] === null && inline) {
        const bytes = Buffer.from(inline.$bin, "hex");
        wanted.push({ i, field, inline: { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") } });
      } else {
        const { pointer, defect, reported, naming, expected } = t;
        wanted.push({ i, field, row: { pointer, defect, reported, naming, expected } });
      }
    }
  });
  return wanted;
}

/**
 * Holds `results` (of `resolveFields` over `deltaFields`) to the truth;
 * returns the counts by `naming outcome`, as `COUNTS.fields` has them.
 */
export function assertFields(results, wanted) {
  assert.equal(results.length, wanted.length);
  const pointed = [];
  const rows = [];
  const inline = { "- inline": 0 };
  wanted.forEach((w, n) => {
    if (w.inline) {
      const at = `row ${w.i} ${w.field} (inline)`;
      assert.equal(results[n].error, undefined, `${at}: ${JSON.stringify(results[n].error)}`);
      assert.deepEqual({ size: results[n].size, sha256: results[n].sha256 }, w.inline, at);
      assert.deepEqual(results[n].check, { pointer: "", ok: true, defect: null, recovered: false, member: null, naming: null, keyConvention: null }, at);
      inline["- inline"]++;
    } else {
      pointed.push(results[n]);
      rows.push(w.row);
    }
  });
  return { ...inline, ...assertPointers(pointed, rows, { bySplit: true }) };
}

/**
 * Holds a column-mapped split of the corpus's `mapped` cache, as read
 * (`{columns: its column names, rows: canonical rows in any order}`), to
 * what delta-rs's query engine read (expected.json's `column_mapping`,
 * rows by column `a`): logical names, every row.
 */
export function assertMappedSplit(got, expected, split) {
  const want = expected.column_mapping[split];
  assert.deepEqual(got.columns, Object.keys(want.rows[0]), `${split} (mode ${want.mode}): columns`);
  assert.deepEqual([...got.rows].sort((x, y) => x.a - y.a), want.rows, `${split} (mode ${want.mode}): rows`);
}
