/**
 * Polls one call of the wasm core to its end, from JavaScript.
 *
 * Why not wasm-bindgen's own queue: a panic in Rust is a wasm trap, and a
 * trap thrown inside a microtask that nobody awaits is an uncaught
 * `RuntimeError: unreachable` that ends a Node process and poisons a page.
 * Here every poll runs inside a `try`, so a trap becomes a rejected promise
 * with code `Internal`, and the instance goes on serving other calls.
 *
 * Abort is JavaScript's side too: when `abort` settles first, the task drops
 * the call's future and gives the `Aborted` error (`task.abort()`). A task
 * is freed as soon as it ends rather than left to the garbage collector.
 *
 * @param {{poll(wake: () => void): boolean, take(): unknown, abort(): unknown, free(): void}} task the call (a wasm `Task`)
 * @param {new (message: string, code: string, options?: object) => Error} [ErrorClass] `AtlasError`
 * @param {() => string | undefined} [takePanicMessage] the panic's message, if one was recorded
 * @param {Promise<unknown>} [abort] settles when the call's `AbortSignal` fires
 * @returns {Promise<unknown>}
 */
export function drive(task, ErrorClass, takePanicMessage, abort) {
  return new Promise((resolve, reject) => {
    let queued = false;
    let ended = false;
    const end = (settle, value) => {
      ended = true;
      try {
        task.free();
      } catch {
        // A trapped instance may refuse; the answer stands.
      }
      settle(value);
    };
    const wake = () => {
      if (!queued && !ended) {
        queued = true;
        queueMicrotask(step);
      }
    };
    const step = () => {
      queued = false;
      if (ended) return;
      let done;
      try {
        done = task.poll(wake);
      } catch (thrown) {
        end(reject, thrown instanceof WebAssembly.RuntimeError ? internal(thrown, ErrorClass, takePanicMessage) : thrown);
        return;
      }
      if (done) end(resolve, task.take());
    };
    abort?.then(() => {
      if (ended) return;
      let error;
      try {
        error = task.abort();
      } catch (thrown) {
        error = thrown;
      }
      end(reject, error);
    });
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
