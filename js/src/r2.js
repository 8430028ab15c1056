/**
 * The R2 source: a Workers R2 binding, read with ranged `get`s. No HTTP is
 * involved, so there is no status to check, but the same rules hold: the
 * first answer pins the object's ETag and size, later gets carry
 * `onlyIf: {etagMatches}`, and an answer about another version is
 * `ObjectChanged`.
 */
import { AtlasError } from "./errors.js";
import { limiter } from "./limit.js";

/** R2's answer to a range it cannot serve (error 10039, InvalidRange). */
const UNSATISFIABLE = /\b10039\b|range is not satisfiable/i;

/**
 * @param {import("./index.d.ts").R2BucketLike} bucket
 * @param {string} key
 * @param {{maxConcurrency?: number}} [options]
 */
export function r2Source(bucket, key, options = {}) {
  const limit = limiter(options.maxConcurrency ?? 6);
  const name = `R2 object ${key}`;
  const pinned = { size: undefined, etag: undefined };
  const fail = (message, code = "Io") => new AtlasError(`${name}: ${message}`, code);

  /**
   * `{size, bytes}` of `range`. With `known` (a copy `persist` keeps): the
   * get is conditional on another ETag, and if the object still has
   * `known.etag` R2 answers its metadata only, the copy is pinned as if
   * read, and this answers `undefined`.
   */
  async function get(range, known) {
    return limit(async () => {
      const onlyIf = known ? { etagDoesNotMatch: known.etag } : pinned.etag ? { etagMatches: pinned.etag } : undefined;
      let object;
      try {
        object = await bucket.get(key, { range, onlyIf });
      } catch (error) {
        if (!UNSATISFIABLE.test(error?.message ?? "")) throw fail(`get failed: ${error?.message ?? error}`);
        // R2 refuses a range that starts at or past the end, and any suffix
        // of an empty object: the whole object answers which it was.
        object = await bucket.get(key, { onlyIf });
        if (object?.size === 0 && "suffix" in range) range = { offset: 0, length: 0 };
        else if (object && typeof object.arrayBuffer === "function") throw outside(range, object.size);
      }
      if (object === null) {
        throw fail("not in the bucket", pinned.size === undefined ? "NotFound" : "ObjectChanged");
      }
      // A failed precondition answers the object's metadata without a body.
      if (typeof object.arrayBuffer !== "function" && known && object.size === known.size) {
        pinned.etag ??= known.etag;
        pinned.size ??= known.size;
        return undefined;
      }
      if (typeof object.arrayBuffer !== "function") {
        throw fail(`its ETag is ${object.etag} now, ${pinned.etag} when opened`, "ObjectChanged");
      }
      if (pinned.size !== undefined && object.size !== pinned.size) {
        throw fail(`it is ${object.size} bytes now, ${pinned.size} when opened`, "ObjectChanged");
      }
      pinned.size ??= object.size;
      pinned.etag ??= object.etag;
      if ("offset" in range && range.offset + range.length > object.size) throw outside(range, object.size);
      return { size: object.size, bytes: new Uint8Array(await object.arrayBuffer()) };
    });
  }

  const outside = ({ offset, length }, size) => fail(`bytes ${offset}..${offset + length} are outside it (${size} bytes)`, "OutOfBounds");

  return {
    describe: () => name,
    readTail: (length) => get({ suffix: length }),
    // What `persist` (persist.js) keys and revalidates kept copies by.
    persistable: { key: `r2:${key}`, etag: () => pinned.etag, revalidateTail: (length, signal, known) => get({ suffix: length }, known) },
    read: async (offset, length) => {
      if (pinned.size !== undefined && offset + length > pinned.size) throw outside({ offset, length }, pinned.size);
      if (length === 0) return new Uint8Array(0);
      return (await get({ offset, length })).bytes;
    },
  };
}
