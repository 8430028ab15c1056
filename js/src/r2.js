/**
 * The R2 source: a Workers R2 binding, read with ranged `get`s. No HTTP is
 * involved, so there is no status to check, but the same rules hold: the
 * first answer pins the object's ETag and size, later gets carry
 * `onlyIf: {etagMatches}`, and an answer about another version is
 * `ObjectChanged`.
 */
import { AtlasError } from "./errors.js";
import { limiter } from "./limit.js";

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

  async function get(range) {
    return limit(async () => {
      const onlyIf = pinned.etag ? { etagMatches: pinned.etag } : undefined;
      const object = await bucket.get(key, { range, onlyIf });
      if (object === null) {
        throw fail("not in the bucket", pinned.size === undefined ? "NotFound" : "ObjectChanged");
      }
      // A failed precondition answers the object's metadata without a body.
      if (typeof object.arrayBuffer !== "function") {
        throw fail(`its ETag is ${object.etag} now, ${pinned.etag} when opened`, "ObjectChanged");
      }
      if (pinned.size !== undefined && object.size !== pinned.size) {
        throw fail(`it is ${object.size} bytes now, ${pinned.size} when opened`, "ObjectChanged");
      }
      pinned.size ??= object.size;
      pinned.etag ??= object.etag;
      return { size: object.size, bytes: new Uint8Array(await object.arrayBuffer()) };
    });
  }

  return {
    describe: () => name,
    readTail: (length) => get({ suffix: length }),
    read: async (offset, length) => (await get({ offset, length })).bytes,
  };
}
