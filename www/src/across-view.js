/**
 * Every dataset at once, three ways:
 * - statistics: one array's per-dataset min and max (`arrayStatsByDataset`,
 *   one segment read, no data blocks) against time, an attribute or position;
 * - values: one value of every dataset, a scalar or one point of a grid,
 *   read with `readAcross` (one planned read for all datasets), against the
 *   same choices of x;
 * - map: two scalars of every dataset (LONGITUDE and LATITUDE) scattered
 *   against each other, both read with `readAcross`.
 */
import { acrossChart, valuesChart } from "./charts.js";
import { toNumbers } from "./dataset-view.js";
import { decodeAttr, epochSeconds, esc, show } from "./format.js";
import { ScatterMap } from "./scatter-map.js";

const NUMERIC = /^(u?int(8|16|32|64)|float(32|64))$/;
const MODES = [
  ["stats", "Statistics"],
  ["values", "Values"],
  ["map", "Map"],
];

export class AcrossView {
  /**
   * @param {HTMLElement} root
   * @param {{onPick: (name: string) => void, onState: (patch: object) => void, onProblem: (e: unknown) => void}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    root.addEventListener("click", (event) => {
      const button = event.target.closest(".across-modes button");
      if (!button || button.dataset.mode === this.mode) return;
      // The array and x chosen carry over; a point belongs to its mode.
      this.#run(() => this.#render({ ...this.#chosen(), point: undefined, mode: button.dataset.mode }));
    });
    root.addEventListener("change", (event) => {
      if (event.target.matches(".variable")) {
        // A new array keeps a time axis, but the one its datasets have; and its own point.
        this.#run(async () => {
          const x = this.root.querySelector(".x")?.value;
          const variable = event.target.value;
          return this.#render({ mode: this.mode, variable, x: x?.startsWith("time:") ? await this.#bestTime(variable) : x });
        });
      } else if (event.target.matches(".x, .point input, .map-x, .map-y")) {
        this.#run(() => this.#render({ mode: this.mode, ...this.#chosen() }));
      }
    });
  }

  #run(task) {
    task().catch((error) => this.hooks.onProblem(error));
  }

  /** What the controls on screen say. */
  #chosen() {
    const value = (selector) => this.root.querySelector(selector)?.value;
    const point = [...this.root.querySelectorAll(".point input")].map((input) => Number(input.value));
    return { variable: value(".variable"), x: value(".x"), point, mapX: value(".map-x"), mapY: value(".map-y") };
  }

  /**
   * @param {import("atlas-wasm").Atlas} atlas
   * @param {{names: string[], arrays: Map<string, {dtype: string, count: number}>, attributes: Map<string, {dtype: string, count: number}>}} catalogue
   * @param {{mode?: string, variable?: string, x?: string, point?: number[], map?: string, fallback?: string}} want
   */
  async show(atlas, catalogue, want) {
    this.atlas = atlas;
    this.catalogue = catalogue;
    this.layouts = new Map();
    this.variables = [...catalogue.arrays].filter(([, a]) => NUMERIC.test(a.dtype)).map(([name]) => name);
    this.times = [...catalogue.arrays].filter(([, a]) => a.dtype === "timestamp_ns").map(([name]) => name);
    this.attrs = [...catalogue.attributes].filter(([key, a]) => key !== "_pyatlas_coords" && (NUMERIC.test(a.dtype) || a.dtype === "string")).map(([key]) => key);
    const [mapX, mapY] = (want.map ?? "").split(",");
    const variable = this.variables.includes(want.variable) ? want.variable : want.fallback && this.variables.includes(want.fallback) ? want.fallback : this.variables[0];
    await this.#render({ mode: want.mode, variable, x: want.x, point: want.point, mapX, mapY });
  }

  /** Draws the controls and the plot of `mode`, filling in what is not chosen. */
  async #render({ mode, variable, x, point, mapX, mapY }) {
    const generation = (this.generation = (this.generation ?? 0) + 1);
    this.mode = MODES.some(([m]) => m === mode) ? mode : "stats";
    this.chart?.destroy();
    this.chart = null;
    variable = this.variables.includes(variable) ? variable : this.variables[0];
    const xs = [...this.times.map((t) => `time:${t}`), ...this.attrs.map((k) => `attr:${k}`), "ordinal"];
    if (this.mode !== "map" && !xs.includes(x)) x = await this.#bestTime(variable);
    let layout = null;
    let where = [];
    if (this.mode === "values" && variable) {
      layout = await this.#layoutOf(variable);
      point = fitPoint(point, layout.shape);
      where = await this.#pointLabels(variable, layout, point);
    }
    if (this.mode === "map") [mapX, mapY] = this.#mapPair(mapX, mapY);
    if (generation !== this.generation) return;

    const option = (value, label, chosen) => `<option value="${esc(value)}"${value === chosen ? " selected" : ""}>${esc(label)}</option>`;
    const arrayMenu = (cls, chosen, label) => `<label>${label} <select class="${cls}">${this.variables.map((v) => option(v, v, chosen)).join("")}</select></label>`;
    const xMenu = `<label>against <select class="x">
        ${this.times.map((t) => option(`time:${t}`, `time: ${t}`, x)).join("")}
        ${this.attrs.map((k) => option(`attr:${k}`, `attribute: ${k}`, x)).join("")}
        ${option("ordinal", "position in collection", x)}
      </select></label>`;
    const pointInputs = layout
      ? layout.shape
          .map((n, k) => `<label class="point" title="index along ${esc(layout.dimensions[k] ?? `dim${k}`)}">${esc(layout.dimensions[k] ?? `dim${k}`)} <input type="number" min="0" max="${n - 1}" value="${point[k]}" aria-label="${esc(layout.dimensions[k] ?? `dim${k}`)} index"> <output class="muted">${esc(where[k] ?? "")}</output></label>`)
          .join("")
      : "";
    const controls = {
      stats: arrayMenu("variable", variable, "array") + xMenu,
      values: arrayMenu("variable", variable, "array") + (pointInputs ? `<span class="muted">at</span> ${pointInputs}` : "") + xMenu,
      map: arrayMenu("map-x", mapX, "x") + arrayMenu("map-y", mapY, "y"),
    }[this.mode];
    const what = {
      stats: "per-dataset statistics, read from each array's segment index: no data blocks",
      values: "one value of every dataset, read with readAcross",
      map: "two values of every dataset against each other, read with readAcross",
    }[this.mode];
    this.root.innerHTML = `
      <header class="ds-head"><h2>Across datasets</h2><span class="muted">${what}</span></header>
      <div class="across-modes" role="tablist">${MODES.map(([m, label]) => `<button type="button" data-mode="${m}" class="${m === this.mode ? "active" : ""}">${label}</button>`).join("")}</div>
      <div class="plot-head">${controls}</div>
      <div class="plot" id="across-plot" data-mode="${this.mode}"></div>
      <div class="plot-note muted"></div>`;

    if (this.mode === "map") {
      this.hooks.onState({ mode: "map", variable: null, x: null, point: null, map: mapX && mapY ? [mapX, mapY] : null });
      if (mapX && mapY) await this.#drawMap(mapX, mapY, generation);
    } else {
      this.hooks.onState({ mode: this.mode === "stats" ? null : this.mode, variable, x, point: this.mode === "values" ? point : null, map: null });
      if (!variable) return;
      if (this.mode === "stats") await this.#drawStats(variable, x, generation);
      else await this.#drawValues(variable, x, point, layout, generation);
    }
  }

  /** The layout of `array` in the first dataset that holds it. */
  async #layoutOf(array) {
    if (!this.layouts.has(array)) {
      const first = (await this.atlas.arrayStatsByDataset(array))[0]?.dataset;
      this.layouts.set(array, first ? await this.atlas.dataset(first).layout(array) : { shape: [], dimensions: [], fillValue: null });
    }
    return this.layouts.get(array);
  }

  /**
   * What each index of `point` is in the first dataset's coordinates (a 1-D
   * array named as the dimension): "1 degrees_north", "2024-01-01"; empty
   * where there is none. One single-cell read per axis.
   */
  async #pointLabels(variable, layout, point) {
    const first = (await this.atlas.arrayStatsByDataset(variable))[0]?.dataset;
    if (!first) return [];
    const ds = this.atlas.dataset(first);
    const arrays = new Set(ds.listArrays());
    return Promise.all(
      layout.dimensions.map(async (dim, k) => {
        if (!arrays.has(dim) || dim === variable) return "";
        const coord = await ds.layout(dim);
        if (coord.shape.length !== 1 || coord.shape[0] !== layout.shape[k]) return "";
        const [read, attrs] = await Promise.all([ds.read(dim, { start: [point[k]], shape: [1] }), ds.arrayAttributes(dim)]);
        const units = typeof attrs.units === "string" && read.dtype !== "timestamp_ns" ? ` ${attrs.units}` : "";
        return `${show(read.data[0], read.dtype)}${units}`;
      }),
    );
  }

  /** Longitude and latitude by their names, else what was asked, else the first two arrays. */
  #mapPair(x, y) {
    const find = (re) => this.variables.find((v) => re.test(v));
    x = this.variables.includes(x) ? x : find(/^(lon|longitude)$/i) ?? this.variables[0];
    y = this.variables.includes(y) ? y : find(/^(lat|latitude)$/i) ?? this.variables.find((v) => v !== x);
    return [x, y];
  }

  /** The timestamp array that most datasets holding `variable` also hold. */
  async #bestTime(variable) {
    if (!variable || !this.times.length) return "ordinal";
    const have = new Set((await this.atlas.arrayStatsByDataset(variable)).map((s) => s.dataset));
    let best = "ordinal";
    let most = 0;
    for (const t of this.times) {
      const n = (await this.atlas.arrayStatsByDataset(t)).filter((s) => have.has(s.dataset)).length;
      if (n > most) {
        most = n;
        best = `time:${t}`;
      }
    }
    return best;
  }

  async #drawStats(variable, x, generation) {
    const plot = this.root.querySelector(".plot");
    const stats = await this.atlas.arrayStatsByDataset(variable);
    const xOf = await this.#xValues(x);
    if (generation !== this.generation) return;
    const rows = stats.map((s) => ({ name: s.dataset, x: xOf(s.dataset), min: Number(s.min), max: Number(s.max) }));
    const kept = rows.filter((r) => Number.isFinite(r.x) && (Number.isFinite(r.min) || Number.isFinite(r.max)));
    const xLabel = x === "ordinal" ? "position" : x.slice(5);
    this.chart = acrossChart(plot, {
      x: kept.map((r) => r.x),
      min: kept.map((r) => r.min),
      max: kept.map((r) => r.max),
      xLabel,
      yLabel: variable,
      time: x.startsWith("time:") || this.dateAttr,
      onPick: (k) => this.hooks.onPick(kept[k].name),
    });
    plot.dataset.ready = variable;
    plot.dataset.points = String(kept.length);
    const skipped = rows.length - kept.length;
    this.root.querySelector(".plot-note").textContent =
      `${kept.length.toLocaleString("en")} datasets hold ${variable}` +
      (skipped ? ` (${skipped} without a usable ${xLabel})` : "") +
      ` of ${this.catalogue.names.length.toLocaleString("en")} · ` +
      (this.chart.regular ? "the band spans each dataset's min to max" : "each bar spans one dataset's min to max") +
      " · click a point to open its dataset";
  }

  async #drawValues(variable, x, point, layout, generation) {
    const plot = this.root.querySelector(".plot");
    const read = await readPoint(this.atlas, variable, point);
    const values = asNumbers(read, layout.fillValue);
    const xOf = await this.#xValues(x);
    if (generation !== this.generation) return;
    const rows = read.datasets.map((name, k) => ({ name, x: xOf(name), y: values[k] }));
    const kept = rows.filter((r) => Number.isFinite(r.x) && Number.isFinite(r.y));
    const xLabel = x === "ordinal" ? "position" : x.slice(5);
    const at = point.length ? `[${point.join(", ")}]` : "";
    this.chart = valuesChart(plot, {
      x: kept.map((r) => r.x),
      y: kept.map((r) => r.y),
      xLabel,
      yLabel: `${variable}${at}`,
      time: x.startsWith("time:") || this.dateAttr,
      onPick: (k) => this.hooks.onPick(kept[k].name),
    });
    plot.drawn.names = plot.drawn.order.map((k) => kept[k].name);
    plot.dataset.ready = variable;
    plot.dataset.points = String(kept.length);
    const missing = rows.filter((r) => !Number.isFinite(r.y)).length;
    const noX = rows.filter((r) => Number.isFinite(r.y) && !Number.isFinite(r.x)).length;
    const skipped = read.skipped?.length ?? 0;
    this.root.querySelector(".plot-note").textContent =
      `${kept.length.toLocaleString("en")} datasets: ${variable}${at} of ${read.datasets.length.toLocaleString("en")} read in one readAcross` +
      (missing ? `, ${missing} missing (fill or NaN)` : "") +
      (noX ? `, ${noX} without a usable ${xLabel}` : "") +
      (skipped ? `, ${skipped} left out (the point is outside their array)` : "") +
      " · click a point to open its dataset";
  }

  async #drawMap(mapX, mapY, generation) {
    const plot = this.root.querySelector(".plot");
    const [lx, ly] = await Promise.all([this.#layoutOf(mapX), this.#layoutOf(mapY)]);
    const [rx, ry] = await Promise.all([readPoint(this.atlas, mapX, lx.shape.map(() => 0)), readPoint(this.atlas, mapY, ly.shape.map(() => 0))]);
    if (generation !== this.generation) return;
    const xv = asNumbers(rx, lx.fillValue);
    const yv = asNumbers(ry, ly.fillValue);
    const yOf = new Map(ry.datasets.map((name, k) => [name, yv[k]]));
    const names = [];
    const x = [];
    const y = [];
    rx.datasets.forEach((name, k) => {
      const yy = yOf.get(name);
      if (Number.isFinite(xv[k]) && Number.isFinite(yy)) {
        names.push(name);
        x.push(xv[k]);
        y.push(yy);
      }
    });
    this.chart = new ScatterMap(plot, { x, y, names, xLabel: mapX, yLabel: mapY, onPick: (name) => this.hooks.onPick(name) });
    plot.dataset.ready = `${mapX},${mapY}`;
    const unmatched = Math.max(rx.datasets.length, ry.datasets.length) - names.length;
    const scalarNote = (l) => (l.shape.length ? `first value of [${l.shape.join(", ")}]` : "scalar");
    this.root.querySelector(".plot-note").textContent =
      `${names.length.toLocaleString("en")} datasets with both ${mapX} (${scalarNote(lx)}) and ${mapY} (${scalarNote(ly)})` +
      (unmatched ? `; ${unmatched} with one missing or filled` : "") +
      " · click a point to open its dataset";
  }

  /** dataset name -> x value, for the chosen axis. */
  async #xValues(x) {
    this.dateAttr = false;
    if (x === "ordinal") {
      const at = new Map(this.catalogue.names.map((n, k) => [n, k]));
      return (name) => at.get(name);
    }
    if (x.startsWith("time:")) {
      // The earliest time of each dataset, from the statistics: no data blocks; NaT has none.
      const at = new Map((await this.atlas.arrayStatsByDataset(x.slice(5))).map((s) => [s.dataset, s.min === null ? NaN : epochSeconds(s.min)]));
      return (name) => at.get(name);
    }
    const values = await this.atlas.attributesByDataset(null, x.slice(5));
    const numbers = new Map();
    let dates = 0;
    for (const [name, raw] of Object.entries(values)) {
      const v = decodeAttr(raw).value;
      if (typeof v === "number" || typeof v === "bigint") numbers.set(name, Number(v));
      else if (typeof v === "string" && /^\d{4}-\d{2}(-\d{2})?/.test(v)) {
        const ms = Date.parse(v.length === 7 ? `${v}-01` : v);
        if (Number.isFinite(ms)) {
          numbers.set(name, ms / 1000);
          dates++;
        }
      }
    }
    this.dateAttr = dates > 0 && dates === numbers.size;
    return (name) => numbers.get(name);
  }
}

/** Indices inside `shape`: the ones asked for, else the middle of a grid or the start of a profile. */
function fitPoint(point, shape) {
  const grid = shape.filter((n) => n > 1).length >= 2;
  return shape.map((n, k) => {
    const asked = point?.[k];
    if (Number.isInteger(asked)) return Math.min(Math.max(0, asked), n - 1);
    return grid ? Math.floor(n / 2) : 0;
  });
}

/** One cell at `point` of `array` in every dataset, skipping those it does not fit. */
function readPoint(atlas, array, point) {
  return atlas.readAcross(array, point.length ? { start: point, shape: point.map(() => 1), skip: true } : { skip: true });
}

/** A readAcross answer as numbers: timestamps in epoch seconds (NaT is NaN), the fill value NaN. */
function asNumbers(read, fill) {
  if (read.dtype === "timestamp_ns") return Float64Array.from(read.data, epochSeconds);
  const values = toNumbers(read.data);
  const copy = values === read.data ? Float64Array.from(values) : values;
  if (typeof fill === "number" && !Number.isNaN(fill)) for (let k = 0; k < copy.length; k++) if (copy[k] === fill) copy[k] = NaN;
  return copy;
}
