/**
 * Every `AtlasError.code` and `AtriaError.code`: the Rust core's
 * `Error::CODES`, then the Atria readers' own `atria::Error::CODES`
 * (BadPointer, UnsupportedProtocol, Corrupt), in the same order (Rust unit
 * tests hold this list and index.d.ts's `AtlasErrorCode` equal to them).
 * The transport codes an HTTP source throws: RangeNotSupported (a 200 or
 * another range than asked), ContentEncoded (a compressed 206), HttpStatus
 * (with `status`), Network, Timeout.
 */
export const CODES = Object.freeze([
  "NotAnAtlasCollection",
  "UnsupportedVersion",
  "CorruptCollection",
  "CorruptMask",
  "DatasetNotFound",
  "ArrayNotFound",
  "DTypeMismatch",
  "OutOfBounds",
  "Io",
  "RangeNotSupported",
  "ContentEncoded",
  "HttpStatus",
  "Network",
  "Timeout",
  "NotFound",
  "ObjectChanged",
  "Aborted",
  "TooLarge",
  "InvalidArgument",
  "Internal",
  "BadPointer",
  "UnsupportedProtocol",
  "Corrupt",
]);

/**
 * The one error class of the package. `code` is stable and shared with the
 * Rust core (`Error::code()`), one of `CODES`; an `HttpStatus` error also
 * carries the HTTP `status`. Branch on `code`, never on `message`.
 */
export class AtlasError extends Error {
  /**
   * @param {string} message
   * @param {string} code
   * @param {{cause?: unknown, status?: number}} [options]
   */
  constructor(message, code, options) {
    super(message, options);
    this.name = "AtlasError";
    this.code = code;
    if (options?.status !== undefined) this.status = options.status;
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
