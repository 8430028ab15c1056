// What the caches written by Atria's own writer code must read as
// (tests/atria/atria-caches/, tests/atria/make_atria_caches.sh): shared by
// atria-writers.test.mjs (Node) and atria-writers-browser.test.mjs (Chromium).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const CACHES = process.env.ATLAS_ATRIA_WRITERS ?? fileURLToPath(new URL("../../tests/atria/atria-caches/", import.meta.url));
export const expectedWriters = () => JSON.parse(readFileSync(`${CACHES}/expected.json`, "utf8"));
export const CONVENTIONS = ["dots", "dots-slashes", "dots-slashes-hash"];
const ORDER = ["verbatim", "dots", "dots-slashes", "dots-slashes-hash"];
const RULES = { verbatim: [], dots: ["."], "dots-slashes": [".", "/"], "dots-slashes-hash": [".", "/", "#"] };
const keyOf = (convention, id) => [...id].map((c) => (RULES[convention].includes(c) ? "_" : c)).join("");
/** The convention a reader must report: the first whose key is the writer's. */
export const reportedConvention = (id, key) => ORDER.find((c) => keyOf(c, id) === key);

/**
 * `got` is `{train: [{row, check, content}], test: […]}` for one Delta cache
 * (`content` the bytes as hex, or an error code); `want` expected.json's
 * `delta` or `delta_edited` of it. Returns [right, recovered].
 */
export function assertDeltaCache(name, got, want) {
  let right = 0;
  let recovered = 0;
  for (const split of ["train", "test"]) {
    assert.equal(got[split].length, want[split].rows.length, `${name} ${split}`);
    for (const { row, check, content } of got[split]) {
      const id = row.sample_id;
      const what = `${name} ${split} ${id}: ${JSON.stringify(check)}`;
      assert.deepEqual(row, want[split].rows.find((r) => r.sample_id === id), what);
      const truth = want[split].pointers.find((p) => p.sample_id === id);
      assert.equal(check.pointer, truth.pointer, what);
      assert.equal(check.ok, truth.ok, what);
      if (check.ok) {
        right++;
        assert.equal(check.defect, null, what);
        assert.equal(truth.atria_reads.sha256, truth.expected.sha256, `${what}: Atria's reader returns the member`);
      } else {
        recovered++;
        assert.equal(check.defect.kind, truth.reported, what);
        assert.equal(check.recovered, true, what);
      }
      const { shard, name: member, offset, size } = truth.expected;
      assert.deepEqual(check.member, { shard, name: member, offset, size }, what);
      assert.equal(check.naming, "content", what);
      assert.equal(check.keyConvention, reportedConvention(id, truth.key), what);
      assert.equal(createHash("sha256").update(Buffer.from(content, "hex")).digest("hex"), truth.expected.sha256, what);
    }
  }
  return [right, recovered];
}

/** `got[split]` the canonical records of one msgpack cache. */
export function assertMsgpackCache(name, got, want) {
  for (const split of ["train", "test"]) {
    assert.deepEqual(got[split], want[split].records, `${name} ${split}`);
    for (const record of got[split]) assert.equal(record.key, keyOf(name, record.sample_id), `${name}: Atria's key`);
  }
}
