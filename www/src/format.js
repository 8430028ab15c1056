/**
 * Turning what the package returns into text a person reads: numbers,
 * BigInts, timestamps (nanoseconds since the epoch) as ISO dates, byte
 * counts, and the conventions atlas-python writes from NetCDF files
 * (`json:`-prefixed attribute values, `_pyatlas_coords`).
 */

export const COORDS_KEY = "_pyatlas_coords";
const NS_PER_MS = 1_000_000n;
/** datetime64's not-a-time: the smallest i64, the fill NumPy and atlas-python write. */
export const NAT = -(2n ** 63n);

/** Whether a timestamp_ns value (BigInt or number) is NaT. */
export function isNaT(ns) {
  return typeof ns === "bigint" ? ns === NAT : Number(ns) <= -9.223372036854775e18;
}

/** An attribute value as stored, or its decoded form for `json:` strings. */
export function decodeAttr(value) {
  if (typeof value === "string" && value.startsWith("json:")) {
    try {
      return { json: true, value: JSON.parse(value.slice(5)) };
    } catch {
      return { json: false, value };
    }
  }
  return { json: false, value };
}

/** The coordinate names a dataset's attributes declare (xarray via atlas-python). */
export function coordinateNames(attributes) {
  const raw = attributes?.[COORDS_KEY];
  if (typeof raw !== "string") return [];
  try {
    const list = JSON.parse(raw.startsWith("json:") ? raw.slice(5) : raw);
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}

/** A timestamp_ns value (BigInt or number of nanoseconds) as an ISO date. */
export function isoTime(ns) {
  if (ns === null || ns === undefined) return "";
  if (isNaT(ns)) return "NaT";
  const big = typeof ns === "bigint" ? ns : BigInt(Math.round(Number(ns)));
  const ms = Number(big / NS_PER_MS);
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return String(ns);
  const iso = new Date(ms).toISOString();
  if (iso.endsWith("T00:00:00.000Z")) return iso.slice(0, 10);
  return iso.endsWith(".000Z") ? iso.slice(0, 19) + "Z" : iso;
}

/** Seconds since the epoch, as plots want time; NaT is NaN. */
export function epochSeconds(ns) {
  if (isNaT(ns)) return NaN;
  return Number(typeof ns === "bigint" ? ns / NS_PER_MS : Math.round(Number(ns) / 1e6)) / 1000;
}

/** A number for a table cell: integers whole, others to 5 significant digits. */
export function number(v) {
  if (typeof v === "bigint") return v.toString();
  if (typeof v !== "number") return String(v);
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "∞" : "−∞";
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toString();
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e7)) return v.toExponential(3);
  return Number(v.toPrecision(5)).toString();
}

/** Any scalar or list value as short text; `dtype` marks timestamps. */
export function show(value, dtype) {
  if (value === null || value === undefined) return "";
  if (dtype === "timestamp_ns") return isoTime(value);
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return number(value);
  if (typeof value === "boolean") return String(value);
  if (value instanceof Uint8Array && dtype !== "uint8" && !String(dtype).startsWith("list")) {
    return `${value.length} bytes 0x${[...value.subarray(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}${value.length > 12 ? "…" : ""}`;
  }
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = Array.from(value.slice(0, 12), (v) => show(v));
    return `[${items.join(", ")}${value.length > 12 ? `, … ${value.length} in all` : ""}]`;
  }
  return JSON.stringify(value);
}

/** An attribute value as text: `json:` values decoded and printed compactly. */
export function showAttr(value) {
  const { json, value: decoded } = decodeAttr(value);
  if (json) return { text: JSON.stringify(decoded, null, 1).replace(/\n\s*/g, " "), json: true };
  return { text: show(decoded), json: false };
}

/** 1234567 -> "1.2 MiB". */
export function bytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function millis(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Sort order over mixed values: missing last, numbers and BigInts by value, else text. */
export function compare(a, b) {
  const missingA = a === undefined || a === null || (typeof a === "number" && Number.isNaN(a));
  const missingB = b === undefined || b === null || (typeof b === "number" && Number.isNaN(b));
  if (missingA || missingB) return missingA === missingB ? 0 : missingA ? 1 : -1;
  const numeric = (v) => typeof v === "number" || typeof v === "bigint";
  if (numeric(a) && numeric(b)) return a < b ? -1 : a > b ? 1 : 0;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

/** Element text for HTML built with template strings. */
export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
