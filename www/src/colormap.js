/**
 * Colour maps as 256-entry RGB tables, each built by linear interpolation
 * between a few published anchor colours.
 */

const ANCHORS = {
  // viridis, sampled at ten even steps: perceptually uniform, colour-blind safe
  viridis: ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"],
  // a blue–white–red diverging map for anomalies
  diverging: ["#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b"],
  // cold to hot, for temperatures
  thermal: ["#042333", "#2c3395", "#744992", "#b15f82", "#eb7655", "#fbb43e", "#e8fa5b"],
};

export const COLORMAPS = Object.keys(ANCHORS);

const cache = new Map();

/** `Uint8Array(256 * 3)` of RGB for the named map. */
export function table(name) {
  if (cache.has(name)) return cache.get(name);
  const anchors = (ANCHORS[name] ?? ANCHORS.viridis).map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));
  const lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (anchors.length - 1);
    const k = Math.min(Math.floor(t), anchors.length - 2);
    const f = t - k;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = Math.round(anchors[k][c] * (1 - f) + anchors[k + 1][c] * f);
  }
  cache.set(name, lut);
  return lut;
}

/** CSS colour of the map at `t` in [0, 1]. */
export function cssAt(name, t) {
  const lut = table(name);
  const i = Math.max(0, Math.min(255, Math.round(t * 255))) * 3;
  return `rgb(${lut[i]}, ${lut[i + 1]}, ${lut[i + 2]})`;
}
