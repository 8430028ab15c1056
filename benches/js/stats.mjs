// What every benchmark script here computes the same way.

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** sum(word_i * (i + 1)) mod 2^32 over 32-bit words: make_workload.py's checksum. */
export function weighted(words) {
  let h = 0;
  for (let i = 0; i < words.length; i++) h = (h + Math.imul(words[i], i + 1)) >>> 0;
  return h;
}
