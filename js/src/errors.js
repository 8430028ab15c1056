/**
 * The one error class of the package. `code` is stable and shared with the
 * Rust core (`Error::code()`): NotAnAtlasCollection, UnsupportedVersion,
 * CorruptCollection, CorruptMask, DatasetNotFound, ArrayNotFound,
 * DTypeMismatch, OutOfBounds, Io, NotFound, ObjectChanged, Aborted, TooLarge,
 * InvalidArgument. Branch on `code`, never on `message`.
 */
export class AtlasError extends Error {
  /**
   * @param {string} message
   * @param {string} code
   * @param {{cause?: unknown}} [options]
   */
  constructor(message, code, options) {
    super(message, options);
    this.name = "AtlasError";
    this.code = code;
  }
}

/** Throws `InvalidArgument` unless `ok`. */
export function expect(ok, message) {
  if (!ok) throw new AtlasError(message, "InvalidArgument");
}

/** The error to throw for an aborted signal. */
export function aborted(signal) {
  return new AtlasError("the read was aborted", "Aborted", { cause: signal?.reason });
}
