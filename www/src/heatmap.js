/**
 * A 2-D slice as a colour-mapped image on canvas, drawn by hand: one pixel
 * per cell into an offscreen canvas, scaled up without smoothing, with axes
 * labelled by coordinate values, a legend, a hover readout and drag-to-zoom.
 * Missing cells (NaN or the array's fill value) stay transparent.
 */
import { cssAt, table } from "./colormap.js";
import { esc, number } from "./format.js";

const MARGIN = { left: 62, right: 14, top: 10, bottom: 44 };

export class Heatmap {
  /** @param {HTMLElement} host */
  constructor(host) {
    host.innerHTML = `
      <div class="heatmap">
        <div class="canvas-wrap"><div class="nan-bg"></div><canvas class="map"></canvas><div class="selection" hidden></div></div>
        <div class="legend">
          <span class="lo"></span><canvas class="colorbar" width="256" height="12"></canvas><span class="hi"></span>
          <span class="units"></span><span class="swatch" title="missing values are transparent"></span><span class="swatch-label">NaN / fill</span>
        </div>
        <div class="readout">&nbsp;</div>
      </div>`;
    this.canvas = host.querySelector("canvas.map");
    this.selection = host.querySelector(".selection");
    this.readout = host.querySelector(".readout");
    this.legend = host.querySelector(".legend");
    this.onZoom = () => {};
    this.#listen();
  }

  /**
   * @param {object} p
   * @param {Float64Array} p.values  ny * nx values, row-major
   * @param {number} p.ny @param {number} p.nx
   * @param {{name: string, units?: string, values?: ArrayLike<number>, format?: (v: number) => string}} p.x
   * @param {{name: string, units?: string, values?: ArrayLike<number>, format?: (v: number) => string}} p.y
   * @param {[number, number]} p.range   colour range
   * @param {string} p.cmap
   * @param {number | null} p.fill
   * @param {string} p.units   of the values
   * @param {{y0: number, x0: number}} p.origin  the window's first cell in the whole array
   * @param {number} p.maxHeight
   */
  draw(p) {
    this.p = p;
    const { values, ny, nx, range, cmap, fill } = p;
    // North up: a coordinate that grows along the rows is drawn growing upwards.
    // Depth and pressure grow downwards, as on a section.
    this.flipY = p.y.values && !p.y.down ? p.y.values.length > 1 && p.y.values[p.y.values.length - 1] > p.y.values[0] : false;

    const width = Math.max(240, this.canvas.parentElement.clientWidth);
    const plotW0 = width - MARGIN.left - MARGIN.right;
    const cell = Math.min(plotW0 / nx, (p.maxHeight ?? 520) / ny, 48);
    const plotW = cell * nx;
    // Few rows (a depth section) are stretched to a readable height.
    const plotH = Math.max(cell * ny, Math.min(220, 48 * ny));
    const box = { left: MARGIN.left, top: MARGIN.top, width: plotW, height: plotH, nx, ny, flipY: this.flipY };
    this.box = box;
    const cssW = Math.ceil(plotW + MARGIN.left + MARGIN.right);
    const cssH = Math.ceil(plotH + MARGIN.top + MARGIN.bottom);
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(cssW * dpr);
    this.canvas.height = Math.round(cssH * dpr);
    this.canvas.style.width = `${cssW}px`;
    this.canvas.style.height = `${cssH}px`;
    this.canvas.dataset.box = JSON.stringify(box);
    Object.assign(this.canvas.parentElement.querySelector(".nan-bg").style, {
      left: `${box.left}px`,
      top: `${box.top}px`,
      width: `${plotW}px`,
      height: `${plotH}px`,
    });

    // The cells, one pixel each.
    const image = new ImageData(nx, ny);
    const lut = table(cmap);
    const [lo, hi] = range;
    const scale = hi > lo ? 255 / (hi - lo) : 0;
    const out = image.data;
    let missing = 0;
    for (let r = 0; r < ny; r++) {
      const i = this.flipY ? ny - 1 - r : r;
      for (let j = 0; j < nx; j++) {
        const v = values[i * nx + j];
        const o = (r * nx + j) * 4;
        if (Number.isNaN(v) || v === fill) {
          missing++;
          continue; // alpha stays 0
        }
        const k = Math.max(0, Math.min(255, Math.round((v - lo) * scale))) * 3;
        out[o] = lut[k];
        out[o + 1] = lut[k + 1];
        out[o + 2] = lut[k + 2];
        out[o + 3] = 255;
      }
    }
    this.missing = missing;
    // The cells drawn, for readers such as the tests.
    this.canvas.closest(".plot").drawn = { values, ny, nx, origin: p.origin };
    const cells = new OffscreenCanvas(nx, ny);
    cells.getContext("2d").putImageData(image, 0, 0);

    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(cells, box.left, box.top, plotW, plotH);
    this.#axes(ctx, box);
    this.#legend(p);
  }

  #axes(ctx, box) {
    const style = getComputedStyle(this.canvas);
    const ink = style.getPropertyValue("--ink").trim() || "#333";
    const faint = style.getPropertyValue("--faint").trim() || "#999";
    ctx.strokeStyle = faint;
    ctx.lineWidth = 1;
    ctx.strokeRect(box.left - 0.5, box.top - 0.5, box.width + 1, box.height + 1);
    ctx.fillStyle = ink;
    ctx.font = "11px system-ui, sans-serif";

    const { x, y, nx, ny } = { ...this.p, nx: box.nx, ny: box.ny };
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (const { at, text } of ticks(x, nx, Math.max(2, Math.floor(box.width / 80)))) {
      const px = box.left + ((at + 0.5) / nx) * box.width;
      ctx.fillRect(Math.round(px), box.top + box.height, 1, 4);
      ctx.fillText(text, px, box.top + box.height + 6);
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const { at, text } of ticks(y, ny, Math.max(2, Math.floor(box.height / 50)))) {
      const row = this.flipY ? ny - 1 - at : at;
      const py = box.top + ((row + 0.5) / ny) * box.height;
      ctx.fillRect(box.left - 4, Math.round(py), 4, 1);
      ctx.fillText(text, box.left - 6, py);
    }
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    ctx.fillText(axisTitle(x), box.left + box.width / 2, box.top + box.height + 40);
    ctx.save();
    ctx.translate(14, box.top + box.height / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "middle";
    ctx.fillText(axisTitle(y), 0, 0);
    ctx.restore();
  }

  #legend(p) {
    const bar = this.legend.querySelector("canvas.colorbar");
    const ctx = bar.getContext("2d");
    for (let i = 0; i < 256; i++) {
      ctx.fillStyle = cssAt(p.cmap, i / 255);
      ctx.fillRect(i, 0, 1, 12);
    }
    this.legend.querySelector(".lo").textContent = number(p.range[0]);
    this.legend.querySelector(".hi").textContent = number(p.range[1]);
    this.legend.querySelector(".units").textContent = p.units ?? "";
  }

  /** The cell under a mouse event, in the window's indices, or null. */
  #cellAt(event) {
    if (!this.box) return null;
    const rect = this.canvas.getBoundingClientRect();
    const fx = (event.clientX - rect.left - this.box.left) / this.box.width;
    const fy = (event.clientY - rect.top - this.box.top) / this.box.height;
    if (fx < 0 || fx >= 1 || fy < 0 || fy >= 1) return null;
    const j = Math.floor(fx * this.box.nx);
    const r = Math.floor(fy * this.box.ny);
    return { i: this.flipY ? this.box.ny - 1 - r : r, j, r };
  }

  #listen() {
    let from = null;
    const canvas = this.canvas;
    canvas.addEventListener("pointermove", (event) => {
      const cell = this.#cellAt(event);
      if (cell) this.#hover(cell);
      if (from && cell) this.#select(from, cell);
    });
    canvas.addEventListener("pointerleave", () => {
      if (!from) this.readout.innerHTML = "&nbsp;";
    });
    canvas.addEventListener("pointerdown", (event) => {
      from = this.#cellAt(event);
      if (from) canvas.setPointerCapture(event.pointerId);
      event.preventDefault();
    });
    canvas.addEventListener("pointerup", (event) => {
      if (!from) return;
      const start = from;
      const to = this.#cellAt(event) ?? start;
      from = null;
      this.selection.hidden = true;
      const i0 = Math.min(start.i, to.i);
      const j0 = Math.min(start.j, to.j);
      const h = Math.abs(start.i - to.i) + 1;
      const w = Math.abs(start.j - to.j) + 1;
      if (h >= 2 && w >= 2) this.onZoom({ y0: this.p.origin.y0 + i0, x0: this.p.origin.x0 + j0, ny: h, nx: w });
    });
  }

  #hover({ i, j }) {
    const { x, y, values, nx, fill, units } = this.p;
    const v = values[i * nx + j];
    const at = (axis, k) => `${esc(axis.name)} ${esc(axis.values ? (axis.format ?? number)(axis.values[k]) : k)}`;
    const value = Number.isNaN(v) || v === fill ? "missing" : `<b>${esc(number(v))}</b> ${esc(units ?? "")}`;
    this.readout.innerHTML = `${at(y, i)}, ${at(x, j)}: ${value}`;
  }

  #select(a, b) {
    const r0 = Math.min(a.r, b.r);
    const r1 = Math.max(a.r, b.r) + 1;
    const j0 = Math.min(a.j, b.j);
    const j1 = Math.max(a.j, b.j) + 1;
    const s = this.selection.style;
    s.left = `${this.box.left + (j0 / this.box.nx) * this.box.width}px`;
    s.top = `${this.box.top + (r0 / this.box.ny) * this.box.height}px`;
    s.width = `${((j1 - j0) / this.box.nx) * this.box.width}px`;
    s.height = `${((r1 - r0) / this.box.ny) * this.box.height}px`;
    this.selection.hidden = false;
  }
}

function axisTitle(axis) {
  return axis.units ? `${axis.name} (${axis.units})` : axis.name;
}

/**
 * Tick positions along an axis of `n` cells: at round coordinate values when
 * the coordinate is monotonic, else at round indices.
 */
function ticks(axis, n, want) {
  const values = axis.values;
  const format = axis.format ?? number;
  const monotonic = values && values.length === n && n > 1 && isMonotonic(values);
  if (!monotonic) {
    return niceSteps(0, n - 1, want).map((k) => ({ at: Math.round(k), text: values ? format(values[Math.round(k)]) : String(Math.round(k)) }));
  }
  if (axis.format) {
    // Dates and other formatted values: evenly spaced cells, not round numbers.
    return niceSteps(0, n - 1, want).map((k) => ({ at: Math.round(k), text: format(values[Math.round(k)]) }));
  }
  const first = values[0];
  const last = values[n - 1];
  const out = [];
  for (const v of niceSteps(Math.min(first, last), Math.max(first, last), want)) {
    const at = indexOf(values, v);
    if (at >= -0.5 && at <= n - 0.5) out.push({ at: Math.round(at), text: number(v) });
  }
  return out;
}

function isMonotonic(values) {
  const up = values[values.length - 1] >= values[0];
  for (let k = 1; k < values.length; k++) {
    if (up ? values[k] < values[k - 1] : values[k] > values[k - 1]) return false;
  }
  return true;
}

/** The fractional index where a monotonic coordinate takes value `v`. */
function indexOf(values, v) {
  const up = values[values.length - 1] >= values[0];
  let lo = 0;
  let hi = values.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (up ? values[mid] <= v : values[mid] >= v) lo = mid;
    else hi = mid;
  }
  const span = values[hi] - values[lo];
  return span === 0 ? lo : lo + (v - values[lo]) / span;
}

/** Round numbers from lo to hi, about `want` of them. */
export function niceSteps(lo, hi, want) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / want;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}
