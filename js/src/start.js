/**
 * Start-up of a wasm module, for both entries (`atlas.js`, `atria.js`). The
 * runtime entry (`node.js`, `atria-browser.js`, …) binds its way of
 * initialising the module; the first open runs it, then hands the module
 * the entry's error class and the driver of its calls (`drive.js`).
 */
import { drive } from "./drive.js";

/**
 * `{bind, start}` for one module. `bind(init)` is called once by the runtime
 * entry. `start()` initialises the module once and answers the same promise
 * to every open; a failed start is forgotten, so that a later open retries.
 *
 * @param {{setErrorClass(c: Function): void, setDriver(d: Function): void}} glue the module's wasm-bindgen exports
 * @param {new (message: string, code: string) => Error} ErrorClass `AtlasError` or `AtriaError`
 * @param {string} entry the package entry that binds the module, for the error when none did
 */
export function startUp(glue, ErrorClass, entry) {
  let initialise = () => {
    throw new ErrorClass(`import ${entry} through its package entry, which loads the wasm module`, "InvalidArgument");
  };
  let ready;
  return {
    bind(init) {
      initialise = init;
    },
    start() {
      ready ??= (async () => {
        await initialise();
        glue.setErrorClass(ErrorClass);
        glue.setDriver(drive);
      })().catch((error) => {
        ready = undefined; // let a later open try again
        throw error;
      });
      return ready;
    },
  };
}
