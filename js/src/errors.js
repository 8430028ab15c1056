/**
 * Every `AtlasError.code`, the same list in the same order as the Rust
 * core's `error::CODES` (a Rust unit test holds them equal, and
 * index.d.ts's `AtlasErrorCode`). The transport codes an HTTP source
 * throws: RangeNotSupported (a 200 or another range than asked),
 * ContentEncoded (a compressed 206), HttpStatus (with `status`), Network,
 * Timeout. BadPointer, UnsupportedProtocol and Corrupt come from the Atria
 * cache readers (Rust `atlas_wasm::atria`, feature `atria`).
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
