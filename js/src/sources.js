/**
 * Sources in memory and in Blobs, and the one shape every source takes
 * before it reaches the core (`bindings/js/src/source.rs`):
 *
 *     readTail(length, signal) -> Promise<{bytes: Bytes, size: number}>
 *     read(offset, length, signal) -> Promise<Bytes>
 *     describe() -> string
 *
 * where `Bytes` is one Uint8Array, or an array of them: the chunks of one
 * answer, in order. The HTTP source answers with its body's chunks, which
 * the core copies into its memory one by one, so a body is never joined in
 * JavaScript first (`joined` does it where JavaScript needs one buffer).
 *
 * A user's own source needs only `read(offset, length)` and `size` (a
 * number, or a function returning one or a promise of one); `readTail` and
 * `describe` are optional.
 */
import { AtlasError } from "./errors.js";

/** @param {Uint8Array} bytes */
export function bytesSource(bytes) {
  if (!(bytes instanceof Uint8Array)) {
    throw new AtlasError("Atlas.fromBytes takes a Uint8Array", "InvalidArgument");
  }
  return {
    size: bytes.length,
    describe: () => `${bytes.length} bytes in memory`,
    read: async (offset, length) => {
      pastTheEnd(offset, length, bytes.length, "the bytes");
      return bytes.subarray(offset, offset + length);
    },
  };
}

/** @param {Blob} blob */
export function blobSource(blob) {
  if (typeof blob?.slice !== "function" || typeof blob.size !== "number") {
    throw new AtlasError("Atlas.fromBlob takes a Blob or a File", "InvalidArgument");
  }
  return {
    size: blob.size,
    describe: () => (blob.name ? `file ${blob.name}` : `a Blob of ${blob.size} bytes`),
    read: async (offset, length) => {
      pastTheEnd(offset, length, blob.size, "the Blob");
      return new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer());
    },
  };
}

/** `OutOfBounds` for a read that runs past an object of `size` bytes. */
function pastTheEnd(offset, length, size, what) {
  if (offset + length > size) {
    throw new AtlasError(`bytes ${offset}..${offset + length} are outside ${what} (${size} bytes)`, "OutOfBounds");
  }
}

/** The normalised form of a source, or `InvalidArgument`. */
export function toSource(source, role) {
  if (typeof source?.read !== "function") {
    throw new AtlasError(
      `${role} must be a source: Atlas.fromUrl/fromR2/fromBlob/fromBytes(...) or an object with read(offset, length)`,
      "InvalidArgument",
    );
  }
  const describe = () => (typeof source.describe === "function" ? String(source.describe()) : `the ${role} source`);
  // Reads a call's plan announced (offset -> its progress reporter), counted in as they land.
  const awaited = new Map();
  // The core holds every answer to its length too; saying so here names the source.
  const read = async (offset, length, signal) => {
    const bytes = asBytes(await source.read(offset, length, signal), describe);
    const got = lengthOf(bytes);
    const reporter = awaited.get(offset);
    if (reporter && got === length) {
      awaited.delete(offset);
      reporter.arrived(length);
    }
    if (got !== length) {
      const size = await sizeOf(source);
      if (size !== undefined && offset + length > size) {
        throw new AtlasError(`bytes ${offset}..${offset + length} are outside ${describe()} (${size} bytes)`, "OutOfBounds");
      }
      throw new AtlasError(`${describe()} answered ${got} bytes for a read of ${length} at offset ${offset}`, "Io");
    }
    return bytes;
  };
  let readTail;
  if (typeof source.readTail === "function") {
    readTail = async (length, signal) => {
      const tail = await source.readTail(length, signal);
      return { size: Number(tail.size), bytes: asBytes(tail.bytes, describe) };
    };
  } else {
    readTail = async (length, signal) => {
      const size = await sizeOf(source);
      if (size === undefined) {
        throw new AtlasError(`${describe()} has no size: give it a size or a readTail(length)`, "InvalidArgument");
      }
      const start = Math.max(0, size - length);
      return { size, bytes: await read(start, size - start, signal) };
    };
  }
  return { describe, read, readTail, awaited, flush: source.flush };
}

/**
 * The reporter behind `onProgress` for one read. The core tells it, before
 * the first request, the ranges its plan will ask `data` for
 * (`planned([offset, length, ...])`, bindings/collection/src/values.rs); each counts in as it
 * arrives. `total` never changes after the first report, `loaded` reaches it
 * when the read succeeds, and nothing is reported after `finish()`.
 */
export function progressReporter(onProgress, data) {
  if (!onProgress) return undefined;
  let loaded = 0;
  let total;
  let done = false;
  const mine = [];
  const report = () => {
    try {
      onProgress({ loaded, total });
    } catch {
      // A callback that throws does not fail the read.
    }
  };
  return {
    planned(ranges) {
      if (done || total !== undefined) return; // one plan per read
      total = 0;
      for (let i = 0; i < ranges.length; i += 2) {
        total += ranges[i + 1];
        data.awaited.set(ranges[i], this);
        mine.push(ranges[i]);
      }
      report();
    },
    arrived(length) {
      if (done) return;
      loaded += length;
      report();
    },
    finish() {
      done = true;
      for (const offset of mine) if (data.awaited.get(offset) === this) data.awaited.delete(offset);
    },
  };
}

/** The size a user's source declares, if it declares a valid one. */
async function sizeOf(source) {
  const size = Number(typeof source.size === "function" ? await source.size() : source.size);
  return Number.isSafeInteger(size) && size >= 0 ? size : undefined;
}

function asBytes(value, describe) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (Array.isArray(value) && value.every((chunk) => chunk instanceof Uint8Array)) return value;
  throw new AtlasError(`${describe()} answered something other than a Uint8Array`, "Io");
}

/** The length of `Bytes` (see the top of this file). */
export function lengthOf(bytes) {
  return Array.isArray(bytes) ? bytes.reduce((n, chunk) => n + chunk.length, 0) : bytes.length;
}

/** `Bytes` as one Uint8Array: chunks are copied into a new one. */
export function joined(bytes) {
  if (!Array.isArray(bytes)) return bytes;
  const out = new Uint8Array(lengthOf(bytes));
  let at = 0;
  for (const chunk of bytes) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
