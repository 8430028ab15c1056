/**
 * A cap on requests in flight. Workers allow six simultaneous outgoing
 * connections, and browsers six per host over HTTP/1.1; more only queue
 * there, out of our sight.
 *
 * @param {number} max
 * @returns {<T>(task: () => Promise<T>) => Promise<T>}
 */
export function limiter(max) {
  let active = 0;
  const waiting = [];
  return async (task) => {
    if (active < max) active++;
    else await new Promise((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next task, so no newcomer slips in between.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
