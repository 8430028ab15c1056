// The canonical JSON of a value atlas-wasm/atria answers, in the form
// tests/atria/make_corpus.py writes the truth in expected.json: bytes as
// {$bin: hex}, numpy values as {$nd: {dtype, shape, data}}, integers beyond
// 2^53 as decimal strings. Pure, so that the Node tests, the Chromium page
// and the Worker all use this one copy.

export function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function isNumpy(v) {
  const keys = Object.keys(v);
  return keys.length === 3 && typeof v.dtype === "string" && Array.isArray(v.shape) && (ArrayBuffer.isView(v.data) || Array.isArray(v.data));
}

function integer(v) {
  return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
}

export function canonical(v) {
  if (v === null || typeof v === "boolean" || typeof v === "string" || typeof v === "number") return v;
  if (typeof v === "bigint") return integer(v);
  if (v instanceof Uint8Array) return { $bin: hex(v) };
  if (Array.isArray(v)) return v.map(canonical);
  if (v instanceof Map) return { $map: [...v].map(([k, x]) => [canonical(k), canonical(x)]) };
  if (isNumpy(v)) {
    const data = Array.from(v.data, (x) => {
      if (v.dtype === "bool") return x === 1;
      if (v.dtype === "binary") return { $bin: hex(x) };
      return typeof x === "bigint" ? integer(x) : x;
    });
    return { $nd: { dtype: v.dtype, shape: v.shape, data } };
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonical(x)]));
}

/** The SHA-256 of `bytes` as hex, with Web Crypto (Node, browsers and workerd have it). */
export async function sha256(bytes) {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/**
 * What `cache.check` and `cache.content` answer for each pointer row of the
 * corpus (`{pointer, expected: {name}}`): the check, and the content's
 * SHA-256 and size, or its error's code and message.
 */
export async function resolvePointers(cache, rows) {
  const out = [];
  for (const row of rows) {
    const check = await cache.check(row.pointer, row.expected.name);
    try {
      const bytes = await cache.content(row.pointer, row.expected.name);
      out.push({ check, sha256: await sha256(bytes), size: bytes.length });
    } catch (error) {
      out.push({ check, error: { code: error.code, message: error.message } });
    }
  }
  return out;
}

/**
 * What `split.check` and `split.content` answer for each `{i, field}`, in
 * the form of `resolvePointers`.
 */
export async function resolveFields(split, wanted) {
  const out = [];
  for (const { i, field } of wanted) {
    const check = await split.check(i, field);
    try {
      const bytes = await split.content(i, field);
      out.push({ check, sha256: await sha256(bytes), size: bytes.length });
    } catch (error) {
      out.push({ check, error: { code: error.code, message: error.message } });
    }
  }
  return out;
}
