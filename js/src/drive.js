/**
 * Polls one call of the wasm core to its end, from JavaScript.
 *
 * Why not wasm-bindgen's own queue: a panic in Rust is a wasm trap, and a
 * trap thrown inside a microtask that nobody awaits is an uncaught
 * `RuntimeError: unreachable` that ends a Node process and poisons a page.
 * Here every poll runs inside a `try`, so a trap becomes a rejected promise
 * with code `Internal`, and the instance goes on serving other calls.
 *
 * @param {{poll(wake: () => void): boolean, take(): unknown}} task the call (a wasm `Task`)
 * @param {new (message: string, code: string, options?: object) => Error} [ErrorClass] `AtlasError`
 * @param {() => string | undefined} [takePanicMessage] the panic's message, if one was recorded
 * @returns {Promise<unknown>}
 */
export function drive(task, ErrorClass, takePanicMessage) {
  return new Promise((resolve, reject) => {
    let queued = false;
    const wake = () => {
      if (!queued) {
        queued = true;
        queueMicrotask(step);
      }
    };
    const step = () => {
      queued = false;
      let done;
      try {
        done = task.poll(wake);
      } catch (thrown) {
        reject(thrown instanceof WebAssembly.RuntimeError ? internal(thrown, ErrorClass, takePanicMessage) : thrown);
        return;
      }
      if (done) resolve(task.take());
    };
    step();
  });
}

function internal(trap, ErrorClass, takePanicMessage) {
  let detail = trap.message;
  try {
    detail = takePanicMessage?.() ?? detail;
  } catch {
    // The instance may refuse even this; the trap's own words remain.
  }
  const message = `internal error in atlas-wasm (please report it): ${detail}`;
  if (ErrorClass) return new ErrorClass(message, "Internal", { cause: trap });
  return Object.assign(new Error(message, { cause: trap }), { name: "AtlasError", code: "Internal" });
}
