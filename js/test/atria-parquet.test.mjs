// ParquetFile of atlas-wasm/atria in Node, over HTTP: every file
// tests/atria/make_parquet.py wrote (pyarrow and delta-rs: every type,
// nesting, encoding and codec, a HuggingFace-like file), every value against
// what pyarrow read back (parquet/expected.json), and the requests: a
// footer in one read, a row group by its chunks, other groups untouched.
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { AtriaError, ParquetFile } from "atlas-wasm/atria";
import { CORPUS } from "./atria-expect.mjs";
import { startServer } from "./server.mjs";

// Integers past 2^53 kept exact: JSON.parse would round them (Node 20 has no
// source access in revivers), so long digit runs become {"$int": "…"} first.
const text = readFileSync(join(CORPUS, "parquet", "expected.json"), "utf8");
const expected = JSON.parse(text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1{"$int": "$2"}'));
let server;
before(async () => {
  server = await startServer({ root: join(CORPUS, "parquet") });
});
after(() => server?.close());

const url = (name) => `${server.url}/${name}.parquet`;
const gets = () => server.log.filter((e) => e.method === "GET");
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const bits = (number) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, number);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
};

/** The reads an open takes: one tail read of 64 KiB, and the rest of a longer footer. */
function footerReads(name) {
  const bytes = readFileSync(join(CORPUS, "parquet", `${name}.parquet`));
  const metadata = bytes.readUInt32LE(bytes.length - 8);
  return metadata + 8 <= 64 * 1024 ? 1 : 2;
}

/** Asserts `value` (as the entry answers it) is what make_parquet.py wrote (see its docstring). */
function same(value, want, at) {
  if (want === null) return assert.equal(value, null, at);
  if (typeof want === "number") return assert.ok(value === want || value === BigInt(want), `${at}: ${value} is not ${want}`);
  if (typeof want !== "object") return assert.equal(value, want, at);
  if ("$int" in want) return assert.equal(BigInt(value), BigInt(want.$int), at);
  if ("$f" in want) return assert.equal(bits(value), want.$f, at);
  if ("$bin" in want) return assert.equal(hex(value), want.$bin, at);
  if (Array.isArray(want)) {
    // A map column is a list of [key, value]: an object (string keys) or a Map here.
    const items = value instanceof Map ? [...value] : Array.isArray(value) ? value : Object.entries(value);
    assert.equal(items.length, want.length, `${at}: length`);
    return items.forEach((item, i) => same(item, want[i], `${at}[${i}]`));
  }
  assert.deepEqual(Object.keys(value).sort(), Object.keys(want).sort(), `${at}: fields`);
  for (const key of Object.keys(want)) same(value[key], want[key], `${at}.${key}`);
}

describe("ParquetFile over HTTP", () => {
  for (const [name, want] of Object.entries(expected).filter(([n]) => !n.startsWith("unsupported"))) {
    it(`${name}: every row equal to pyarrow's, by readRowGroup, rows() and row()`, async () => {
      server.reset();
      const file = await ParquetFile.open(url(name));
      assert.equal(gets().length, footerReads(name), "the footer in one read (two past 64 KiB)");
      assert.equal(file.numRows, want.num_rows);
      assert.deepEqual(file.rowGroups, want.row_groups);
      assert.deepEqual(file.columns.map((c) => c.name), want.columns);
      let i = 0;
      for await (const row of file.rows()) same(row, want.rows[i], `${name} row ${i++}`);
      assert.equal(i, want.num_rows);
      const last = want.num_rows - 1;
      if (last >= 0) same(await file.row(last), want.rows[last], `${name} row ${last}`);
      else await assert.rejects(file.row(0), (e) => e instanceof AtriaError && e.code === "OutOfBounds");
    });
  }

  it("reads only the asked columns of only the asked row group", async () => {
    const want = expected.hf;
    const file = await ParquetFile.open(url("hf"));
    server.reset();
    const rows = await file.readRowGroup(1, { columns: ["label"] });
    assert.deepEqual(rows.map((r) => Object.keys(r)), rows.map(() => ["label"]));
    const from = want.row_groups[0];
    rows.forEach((row, k) => same(row.label, want.rows[from + k].label, `hf row ${from + k}`));
    const ranges = gets().map((e) => e.range);
    const labelChunk = want.chunk_ranges[1][want.columns.indexOf("label")];
    assert.equal(ranges.length, 1, `one read: ${ranges}`);
    assert.equal(ranges[0], `bytes=${labelChunk[0]}-${labelChunk[1] - 1}`, "exactly the label column's chunk of group 1");
  });

  it("refuses what it cannot read with a typed error", async () => {
    const brotli = await ParquetFile.open(url("unsupported_brotli"));
    await assert.rejects(brotli.readRowGroup(0), (e) => e instanceof AtriaError && e.code === "UnsupportedProtocol" && /BROTLI/i.test(e.message));
    await assert.rejects(ParquetFile.open(`${server.url}/nothing.parquet`), (e) => e instanceof AtriaError && e.code === "NotFound");
    const file = await ParquetFile.open(url("hf"));
    await assert.rejects(file.readRowGroup(99), (e) => e instanceof AtriaError && e.code === "OutOfBounds");
    await assert.rejects(file.readRowGroup(0, { columns: ["nope"] }), (e) => e instanceof AtriaError);
    const signal = AbortSignal.abort();
    await assert.rejects(file.row(0, { signal }), (e) => e.code === "Aborted");
  });
});
