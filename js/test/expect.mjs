/**
 * Holds what the package answers against a fixture's `expected.json`, the
 * canonical dump atlas-rust made of the same collection (see
 * interop/src/encode.rs for the encoding). Expected values are parsed and
 * compared, never our values printed: floats arrive as Rust `{:?}` strings
 * (a NaN as `NaN:` and its bits, compared bit for bit),
 * 64-bit integers as JSON numbers too long for a double.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const FIXTURES = process.env.ATLAS_FIXTURES;

/** The fixture directories present, `expected.json` loaded lazily. */
export function fixtureNames() {
  assert.ok(FIXTURES, "set ATLAS_FIXTURES to the directory `atlas-interop suite` wrote");
  return readdirSync(FIXTURES)
    .filter((name) => existsSync(join(FIXTURES, name, "expected.json")))
    .sort();
}

/** `expected.json` with every integer of 16+ digits kept exact as a string. */
export function expected(name) {
  const text = readFileSync(join(FIXTURES, name, "expected.json"), "utf8");
  return JSON.parse(text.replace(/([[:,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

const CODECS = { Zstd: "zstd", Lz4: "lz4", Uncompressed: "none" };
const WIDE = new Set(["int64", "uint64", "timestamp_ns"]);

/** A float from its canonical form: Rust `{:?}`, or `NaN:` and its bits in hex. */
export function float(text) {
  if (text === "inf") return Infinity;
  if (text === "-inf") return -Infinity;
  if (text.startsWith("NaN:")) return NaN;
  return Number(text);
}

/**
 * Bit for bit where the bits survive: `bits` (hex) are a NaN's stored bits,
 * read from the typed array that holds it. A lone JS number (an attribute, or
 * a value carried through JSON from a page) cannot be trusted to keep a
 * NaN's sign and payload, so there a NaN only has to be a NaN.
 */
function sameFloat(actual, text, single, where, bits = undefined) {
  if (text.startsWith("NaN:")) {
    assert.ok(Number.isNaN(actual), `${where}: ${actual} is not ${text}`);
    if (bits !== undefined) assert.equal(`NaN:${bits}`, text, `${where}: NaN bits`);
    return;
  }
  const want = single ? Math.fround(float(text)) : float(text);
  assert.ok(Object.is(actual, want), `${where}: ${actual} is not ${text}`);
}

/** The stored bits of element `i` of a Float32Array or Float64Array, in hex. */
function storedBits(data, i) {
  const single = data instanceof Float32Array;
  const view = new DataView(data.buffer, data.byteOffset + i * data.BYTES_PER_ELEMENT);
  const bits = single ? view.getUint32(0, true) : view.getBigUint64(0, true);
  return bits.toString(16).padStart(single ? 8 : 16, "0");
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One element of an array of `dtype` against its canonical JSON. */
function sameElement(actual, want, dtype, where) {
  if (dtype === "float32" || dtype === "float64") return sameFloat(actual, want, dtype === "float32", where);
  if (WIDE.has(dtype)) return assert.equal(actual, BigInt(want), where);
  if (dtype === "binary") return assert.equal(hex(actual), want, where);
  assert.equal(actual, want, where);
}

/** A whole read against the expected flat values (or a C-order window of them). */
export function sameValues(result, want, dtype, where) {
  assert.equal(result.dtype, dtype, `${where}: dtype`);
  assert.equal(result.data.length, want.length, `${where}: element count`);
  const typed = result.data instanceof Float32Array || result.data instanceof Float64Array;
  for (let i = 0; i < want.length; i++) {
    if (typed) sameFloat(result.data[i], want[i], dtype === "float32", `${where}[${i}]`, storedBits(result.data, i));
    else sameElement(result.data[i], want[i], dtype, `${where}[${i}]`);
  }
}

/** `values` (flat, C order, of `shape`) cut to the window `start`/`size`. */
export function window(values, shape, start, size) {
  const out = [];
  const rank = shape.length;
  const index = start.slice();
  const total = size.reduce((a, b) => a * b, 1);
  for (let n = 0; n < total; n++) {
    let flat = 0;
    for (let a = 0; a < rank; a++) flat = flat * shape[a] + index[a];
    out.push(values[flat]);
    for (let a = rank - 1; a >= 0; a--) {
      if (++index[a] < start[a] + size[a]) break;
      index[a] = start[a];
    }
  }
  return out;
}

/** An attribute value against `{type, value}`. */
export function sameAttr(actual, { type, value }, where) {
  const list = type.endsWith("List");
  const scalar = list ? type.slice(0, -4) : type;
  const one = (a, w, at, bits) => {
    switch (scalar) {
      case "Float32":
        return sameFloat(a, w, true, at, bits);
      case "Float64":
        return sameFloat(a, w, false, at, bits);
      case "Int64":
      case "UInt64":
        assert.equal(typeof a, "bigint", `${at}: a 64-bit integer is a BigInt`);
        return assert.equal(a, BigInt(w), at);
      case "Binary":
        assert.ok(a instanceof Uint8Array, `${at}: binary is a Uint8Array`);
        return assert.equal(hex(a), w, at);
      default:
        return assert.equal(a, w, at);
    }
  };
  if (!list) return one(actual, value, where);
  assert.equal(actual.length, value.length, `${where}: list length`);
  const typed = actual instanceof Float32Array || actual instanceof Float64Array;
  for (let i = 0; i < value.length; i++) one(actual[i], value[i], `${where}[${i}]`, typed ? storedBits(actual, i) : undefined);
}

function sameAttrs(actual, pairs, where) {
  assert.deepEqual(Object.keys(actual), pairs.map(([k]) => k), `${where}: keys in order`);
  for (const [key, value] of pairs) sameAttr(actual[key], value, `${where}.${key}`);
}

/** A bound or fill value against `{type, value}`, for an array of `dtype`. */
function sameScalar(actual, want, dtype, where) {
  if (want === null) return assert.equal(actual, null, where);
  const { type, value } = want;
  if (type === "Float") return sameFloat(actual, value, false, where);
  if (type === "Bytes") {
    const bytes = typeof actual === "string" ? new TextEncoder().encode(actual) : actual;
    return assert.equal(hex(bytes), value, where);
  }
  if (type === "Int" || type === "UInt" || type === "TimestampNs") {
    assert.equal(typeof actual, WIDE.has(dtype) || type === "TimestampNs" ? "bigint" : "number", `${where}: type`);
    return assert.equal(BigInt(actual), BigInt(value), where);
  }
  assert.equal(actual, value, where);
}

export function sameStats(actual, want, dtype, where) {
  if (want === null) return assert.equal(actual, null, where);
  assert.ok(actual, `${where}: stats expected`);
  sameScalar(actual.min, want.min, dtype, `${where}.min`);
  sameScalar(actual.max, want.max, dtype, `${where}.max`);
  assert.equal(actual.nullCount, Number(want.null_count), `${where}.nullCount`);
  assert.equal(actual.rowCount, Number(want.row_count), `${where}.rowCount`);
}

/**
 * Walks the whole collection through the public API and compares every
 * answer with the dump. `sample` limits the datasets walked in full.
 */
export async function checkCollection(atlas, want, { sample = Infinity } = {}) {
  assert.equal(atlas.formatVersion, want.format_version);
  assert.equal(atlas.codec, CODECS[want.codec]);
  assert.equal(atlas.createdUnixMs, Number(want.created_unix_ms));
  assert.equal(atlas.totalDatasets, want.total_datasets);
  assert.equal(atlas.datasetCount, want.dataset_count);
  assert.deepEqual(atlas.listArrays(), want.arrays);
  assert.deepEqual(atlas.listDatasets(), want.datasets.map((d) => d.name));

  for (const [n, d] of want.datasets.entries()) {
    if (n >= sample) continue;
    const ds = atlas.dataset(d.name);
    const where = `dataset ${d.name}`;
    assert.equal(ds.name, d.name);
    assert.equal(ds.ordinal, d.ordinal, `${where}: ordinal`);
    sameAttrs(await ds.attributes(), d.attributes, `${where} attributes`);
    assert.deepEqual(ds.schema.arrays.map((a) => [a.name, a.dtype]), d.arrays.map((a) => [a.name, a.dtype]), `${where}: schema`);
    for (const a of d.arrays) {
      const at = `${where} array ${a.name}`;
      const layout = await ds.layout(a.name);
      assert.deepEqual(layout.shape, a.shape, `${at}: shape`);
      assert.deepEqual(layout.chunkShape, a.chunk_shape, `${at}: chunk shape`);
      assert.deepEqual(layout.dimensions, a.dimensions, `${at}: dimensions`);
      sameScalar(layout.fillValue, a.fill, a.dtype, `${at}: fill`);
      sameAttrs(await ds.arrayAttributes(a.name), a.attributes, `${at} attributes`);
      sameStats(await ds.stats(a.name), a.stats, a.dtype, `${at} stats`);
      const read = await ds.read(a.name);
      assert.deepEqual(read.shape, a.shape, `${at}: read shape`);
      sameValues(read, a.values, a.dtype, at);
    }
  }

  for (const [array, stats] of Object.entries(want.array_stats)) {
    const wantEach = want.array_stats_by_dataset[array];
    const dtypeIn = (dataset) => want.datasets.find((d) => d.name === dataset)?.arrays.find((a) => a.name === array)?.dtype;
    // A merged bound is shown as the dataset it came from shows it. On a tie
    // atlas-rust keeps the standing minimum and takes the new maximum.
    const same = (a, b) => a !== null && b !== null && a.type === b.type && String(a.value) === String(b.value);
    const minFrom = wantEach.find((s) => same(s.min, stats?.min));
    const maxFrom = wantEach.findLast((s) => same(s.max, stats?.max));
    const merged = await atlas.arrayStats(array);
    if (stats === null) {
      assert.equal(merged, null, `arrayStats(${array})`);
    } else {
      sameScalar(merged.min, stats.min, minFrom && dtypeIn(minFrom.name), `arrayStats(${array}).min`);
      sameScalar(merged.max, stats.max, maxFrom && dtypeIn(maxFrom.name), `arrayStats(${array}).max`);
      assert.equal(merged.nullCount, Number(stats.null_count), `arrayStats(${array}).nullCount`);
      assert.equal(merged.rowCount, Number(stats.row_count), `arrayStats(${array}).rowCount`);
    }
    const each = await atlas.arrayStatsByDataset(array);
    assert.deepEqual(each.map((s) => s.dataset), wantEach.map((s) => s.name), `arrayStatsByDataset(${array}): datasets`);
    for (const [i, s] of wantEach.entries()) {
      sameStats(each[i], s, dtypeIn(s.name), `arrayStatsByDataset(${array})[${i}]`);
    }
  }
  for (const { array, key, values } of want.attributes_by_dataset) {
    sameAttrs(await atlas.attributesByDataset(array, key), values, `attributesByDataset(${array}, ${key})`);
  }
}
