/**
 * `AbortSignal` around a handle call, for both entries (`atlas.js`,
 * `atria.js`): the wasm side takes a promise that settles on abort.
 */

/** A promise that settles when `signal` aborts, and a way to stop listening. */
export function abortOf(signal) {
  if (!signal) return undefined;
  let stop;
  const promise = new Promise((resolve) => {
    stop = resolve;
    signal.addEventListener("abort", stop, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", stop) };
}

/**
 * `cancellable(signal, call)`: runs `call(abortPromise)`, a handle call that
 * `signal` may cut short; a signal aborted before it starts throws
 * `aborted(signal)` (each entry's own error class).
 */
export function cancellableWith(aborted) {
  return async (signal, call) => {
    if (signal?.aborted) throw aborted(signal);
    const abort = abortOf(signal);
    try {
      return await call(abort?.promise);
    } finally {
      abort?.dispose();
    }
  };
}
