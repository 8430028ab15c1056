/**
 * One point per dataset, drawn by hand on canvas: two scalars of every
 * dataset against each other. Longitude against latitude is drawn as a
 * map (the whole globe, equal degrees, a 30-degree graticule); any other
 * pair on ranges fitted to the data. Hovering names the dataset under the
 * pointer; clicking opens it.
 */
import { esc, number } from "./format.js";

const MARGIN = { left: 56, right: 14, top: 10, bottom: 42 };
const RADIUS = 3;

/** Whether two axis names read as longitude and latitude. */
export function isGeographic(xName, yName) {
  return /^(lon|longitude|x_lon|nav_lon)$/i.test(xName) && /^(lat|latitude|y_lat|nav_lat)$/i.test(yName);
}

export class ScatterMap {
  /**
   * @param {HTMLElement} host
   * @param {{x: ArrayLike<number>, y: ArrayLike<number>, names: string[], xLabel: string, yLabel: string, onPick?: (name: string) => void}} p
   */
  constructor(host, p) {
    this.host = host;
    this.p = p;
    host.innerHTML = `<canvas class="scatter"></canvas><div class="readout">&nbsp;</div>`;
    this.canvas = host.querySelector("canvas");
    this.readout = host.querySelector(".readout");
    this.geo = isGeographic(p.xLabel, p.yLabel);
    this.#draw();
    this.canvas.addEventListener("pointermove", (event) => this.#hover(event));
    this.canvas.addEventListener("click", (event) => {
      const k = this.#nearest(event);
      if (k >= 0) p.onPick?.(p.names[k]);
    });
    // The points drawn, for readers such as the tests.
    host.drawn = { x: Array.from(p.x), y: Array.from(p.y), names: p.names };
    host.dataset.points = String(p.names.length);
    host.dataset.geo = String(this.geo);
  }

  destroy() {
    this.host.replaceChildren();
  }

  #draw() {
    const { x, y } = this.p;
    const width = Math.max(320, this.host.clientWidth);
    const plotW = width - MARGIN.left - MARGIN.right;
    const [x0, x1] = this.geo ? [-180, 180] : extent(x);
    const [y0, y1] = this.geo ? [-90, 90] : extent(y);
    const plotH = this.geo ? Math.min(520, plotW * ((y1 - y0) / (x1 - x0))) : Math.min(420, plotW * 0.6);
    const box = { left: MARGIN.left, top: MARGIN.top, width: plotW, height: plotH, x0, x1, y0, y1 };
    this.box = box;
    const cssH = Math.ceil(plotH + MARGIN.top + MARGIN.bottom);
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(cssH * dpr);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${cssH}px`;
    this.canvas.dataset.box = JSON.stringify(box);

    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = this.geo ? "#eef4fb" : "#ffffff";
    ctx.fillRect(box.left, box.top, plotW, plotH);
    ctx.font = "11px system-ui, sans-serif";
    ctx.lineWidth = 1;
    ctx.strokeStyle = "#d9dee6";
    ctx.fillStyle = "#1f2937";
    const xs = this.geo ? range(-180, 180, 30) : niceTicks(x0, x1, Math.max(3, Math.floor(plotW / 90)));
    const ys = this.geo ? range(-90, 90, 30) : niceTicks(y0, y1, Math.max(3, Math.floor(plotH / 60)));
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (const v of xs) {
      const px = Math.round(this.#px(v)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(px, box.top);
      ctx.lineTo(px, box.top + plotH);
      ctx.stroke();
      ctx.fillText(number(v), px, box.top + plotH + 5);
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const v of ys) {
      const py = Math.round(this.#py(v)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(box.left, py);
      ctx.lineTo(box.left + plotW, py);
      ctx.stroke();
      ctx.fillText(number(v), box.left - 6, py);
    }
    ctx.strokeStyle = "#9ca3af";
    ctx.strokeRect(box.left - 0.5, box.top - 0.5, plotW + 1, plotH + 1);
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    ctx.fillText(this.p.xLabel, box.left + plotW / 2, box.top + plotH + 38);
    ctx.save();
    ctx.translate(14, box.top + plotH / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "middle";
    ctx.fillText(this.p.yLabel, 0, 0);
    ctx.restore();

    ctx.fillStyle = "rgba(37, 99, 235, 0.75)";
    ctx.strokeStyle = "white";
    ctx.lineWidth = 0.75;
    for (let k = 0; k < x.length; k++) {
      ctx.beginPath();
      ctx.arc(this.#px(x[k]), this.#py(y[k]), RADIUS, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
  }

  #px(v) {
    const b = this.box;
    return b.left + ((v - b.x0) / (b.x1 - b.x0 || 1)) * b.width;
  }

  #py(v) {
    const b = this.box;
    return b.top + b.height - ((v - b.y0) / (b.y1 - b.y0 || 1)) * b.height;
  }

  /** The index of the point within a few pixels of the pointer, or -1. */
  #nearest(event) {
    const rect = this.canvas.getBoundingClientRect();
    const mx = event.clientX - rect.left;
    const my = event.clientY - rect.top;
    let best = -1;
    let bestD = (RADIUS + 4) ** 2;
    const { x, y } = this.p;
    for (let k = 0; k < x.length; k++) {
      const d = (this.#px(x[k]) - mx) ** 2 + (this.#py(y[k]) - my) ** 2;
      if (d < bestD) {
        bestD = d;
        best = k;
      }
    }
    return best;
  }

  #hover(event) {
    const k = this.#nearest(event);
    const { x, y, names, xLabel, yLabel } = this.p;
    this.canvas.style.cursor = k >= 0 ? "pointer" : "crosshair";
    this.readout.innerHTML = k >= 0 ? `<b>${esc(names[k])}</b> · ${esc(xLabel)} ${esc(number(x[k]))}, ${esc(yLabel)} ${esc(number(y[k]))}` : "&nbsp;";
  }
}

function extent(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!(lo <= hi)) return [0, 1];
  const pad = (hi - lo) * 0.05 || Math.abs(lo) * 0.05 || 1;
  return [lo - pad, hi + pad];
}

function range(from, to, step) {
  const out = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
}

/** Round tick values inside [lo, hi], about `want` of them. */
function niceTicks(lo, hi, want) {
  const raw = (hi - lo) / want;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  return range(Math.ceil(lo / step) * step, hi, step).map((v) => Number(v.toPrecision(12)));
}
