/**
 * One dataset: a plot of the chosen array (heatmap, line chart or value),
 * its schema with layouts and statistics, and its attributes, with the
 * xarray conventions atlas-python writes made readable.
 *
 * Every read asks for the window on screen only: a 2-D slice of an N-d
 * array (sliders pick the other axes), or the zoomed part of it.
 */
import { lineChart } from "./charts.js";
import { COLORMAPS } from "./colormap.js";
import { COORDS_KEY, coordinateNames, epochSeconds, esc, isoTime, number, show, showAttr } from "./format.js";
import { Heatmap } from "./heatmap.js";

const NUMERIC = /^(u?int(8|16|32|64)|float(32|64)|bool)$/;
/** Larger windows are cut to this many cells per axis; zoom reads the rest. */
const MAX_SIDE = 1024;
const MAX_LINE = 1_000_000;
/** Arrays that give an ocean profile its vertical axis when no coordinate is declared (Argo's PRES is a data variable). */
export const VERTICAL = /^(pres|pressure|pres_adjusted|depth|deph|depth_below_sea_surface)$/i;

/** The axes longer than one cell: what a plot has to show. */
export function longAxes(shape) {
  return shape.flatMap((n, k) => (n > 1 ? [k] : []));
}

/** Whether a coordinate grows downwards into the ocean (CF `positive: down`, or named so). */
function isDownwards(name, attrs) {
  if (attrs.positive === "down") return true;
  if (attrs.positive === "up") return false;
  return VERTICAL.test(name) || /^(dbar|decibar)$/i.test(String(attrs.units ?? ""));
}

export class DatasetView {
  /**
   * @param {HTMLElement} root
   * @param {{progress: (p: {loaded: number, total: number, label: string} | null) => void,
   *          onState: (patch: object) => void, onProblem: (error: unknown) => void}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.plotAbort = null;
    this.cmap = "viridis";
    this.rangeMode = "dataset";
  }

  clear(html = "") {
    this.plotAbort?.abort();
    this.chart?.destroy();
    this.chart = null;
    this.root.innerHTML = html;
  }

  /**
   * @param {import("atlas-wasm").Dataset} ds
   * @param {{array?: string, idx?: number[], win?: number[], axes?: number[], signal: AbortSignal}} want
   */
  async show(ds, want) {
    this.clear();
    this.ds = ds;
    this.signal = want.signal;
    const schema = ds.schema;
    const [attributes, layouts, stats] = await Promise.all([
      ds.attributes(),
      Promise.all(schema.arrays.map((a) => ds.layout(a.name))),
      Promise.all(schema.arrays.map((a) => ds.stats(a.name).catch(() => null))),
    ]);
    if (want.signal.aborted) return;
    this.attributes = attributes;
    this.coords = coordinateNames(attributes);
    this.arrays = schema.arrays.map((a, k) => ({ ...a, layout: layouts[k], stats: stats[k], coord: this.coords.includes(a.name) }));
    this.coordCache = new Map();
    const array = this.arrays.find((a) => a.name === want.array) ?? this.#defaultArray();

    this.root.innerHTML = `
      <header class="ds-head">
        <h2>${esc(ds.name)}</h2>
        <span class="muted">ordinal ${ds.ordinal} · ${this.arrays.length} arrays${this.coords.length ? ` · coordinates ${this.coords.map((c) => `<code>${esc(c)}</code>`).join(" ")}` : ""}</span>
      </header>
      <section class="plot-panel">
        <div class="plot-head"><h3 class="plot-title"></h3><div class="plot-controls"></div></div>
        <div class="sliders"></div>
        <div class="plot" id="plot"></div>
        <div class="plot-note muted"></div>
        <div class="array-attrs"></div>
      </section>
      <section>
        <h3>Arrays</h3>
        <div class="scroll-x"><table class="schema">
          <thead><tr><th>name</th><th>dtype</th><th>dimensions × shape</th><th>chunks</th><th>fill</th><th class="num">min</th><th class="num">max</th><th class="num">nulls</th><th class="num">count</th></tr></thead>
          <tbody>${this.arrays.map((a) => this.#schemaRow(a)).join("")}</tbody>
        </table></div>
      </section>
      <section>
        <h3>Attributes</h3>
        ${attributeTable(attributes, schema.attributes)}
      </section>`;
    this.root.querySelector("table.schema tbody").addEventListener("click", (event) => {
      const row = event.target.closest("tr[data-array]");
      if (row) this.plot(this.arrays.find((a) => a.name === row.dataset.array), {});
    });
    await this.plot(array, { idx: want.idx, win: want.win, axes: want.axes });
  }

  #defaultArray() {
    const data = this.arrays.filter((a) => !a.coord && !VERTICAL.test(a.name) && NUMERIC.test(a.dtype));
    return (
      data.find((a) => longAxes(a.layout.shape).length >= 2) ??
      data.find((a) => longAxes(a.layout.shape).length === 1) ??
      this.arrays.find((a) => a.layout.shape.length >= 1) ??
      this.arrays[0]
    );
  }

  #schemaRow(a) {
    const { shape, chunkShape, dimensions, fillValue } = a.layout;
    const dims = shape.length ? shape.map((n, k) => `${esc(dimensions[k] ?? `dim${k}`)}=${n}`).join(" × ") : "scalar";
    const s = a.stats;
    const bound = (v) => (v === null || v === undefined ? "" : esc(show(v, a.dtype)));
    return `<tr data-array="${esc(a.name)}">
      <td><b>${esc(a.name)}</b>${a.coord ? ' <span class="badge">coord</span>' : ""}</td>
      <td><code>${esc(a.dtype)}</code></td>
      <td>${dims}</td>
      <td>${chunkShape.length ? esc(chunkShape.join(" × ")) : ""}</td>
      <td>${fillValue === null ? "" : esc(show(fillValue, a.dtype))}</td>
      <td class="num">${s ? bound(s.min) : ""}</td><td class="num">${s ? bound(s.max) : ""}</td>
      <td class="num">${s ? number(s.nullCount) : ""}</td><td class="num">${s ? number(s.rowCount) : ""}</td>
    </tr>`;
  }

  /** Plots `array`: what fits its rank and dtype. */
  async plot(array, { idx, win, axes }) {
    this.plotAbort?.abort();
    this.chart?.destroy();
    this.chart = null;
    const abort = new AbortController();
    this.plotAbort = abort;
    const signal = AbortSignal.any([abort.signal, this.signal]);
    this.current = array;
    for (const row of this.root.querySelectorAll("tr[data-array]")) row.classList.toggle("selected", row.dataset.array === array.name);
    const panel = this.root.querySelector(".plot-panel");
    const plot = panel.querySelector(".plot");
    plot.removeAttribute("data-ready");
    plot.dataset.kind = "";
    panel.querySelector(".plot-title").innerHTML = `${esc(array.name)} <span class="muted">${esc(array.dtype)}${array.layout.shape.length ? ` [${array.layout.shape.join(", ")}]` : ""}</span>`;
    panel.querySelector(".plot-controls").innerHTML = "";
    panel.querySelector(".sliders").innerHTML = "";
    panel.querySelector(".plot-note").textContent = "";
    const arrayAttrs = await this.ds.arrayAttributes(array.name);
    if (signal.aborted) return;
    this.units = typeof arrayAttrs.units === "string" ? arrayAttrs.units : "";
    panel.querySelector(".array-attrs").innerHTML = Object.keys(arrayAttrs).length
      ? `<h4>Attributes of ${esc(array.name)}</h4>${attributeTable(arrayAttrs)}`
      : "";
    this.hooks.onState({ array: array.name, idx: null, win: null, axes: null });

    try {
      // A [1, 513] profile is a line along its long axis, not a 1-pixel heatmap.
      const long = longAxes(array.layout.shape).length;
      if (long >= 2 && NUMERIC.test(array.dtype)) await this.#heatmap(array, plot, { idx, win, axes, signal });
      else if (long === 1 && NUMERIC.test(array.dtype)) await this.#line(array, plot, signal);
      else await this.#values(array, plot, signal);
      plot.dataset.ready = array.name;
    } catch (error) {
      if (error?.code === "Aborted" || signal.aborted) {
        this.hooks.onAborted?.();
        return;
      }
      plot.innerHTML = "";
      this.hooks.onProblem(error);
    } finally {
      if (this.plotAbort === abort) this.hooks.progress(null);
    }
  }

  #read(array, start, shape, signal) {
    this.hooks.progress({ loaded: 0, total: 0, label: `reading ${array.name}` });
    return this.ds.read(array.name, {
      start,
      shape,
      signal,
      onProgress: ({ loaded, total }) => this.hooks.progress({ loaded, total, label: `reading ${array.name}` }),
    });
  }

  /** The coordinate along dimension `dim` (name, values, units, format), or null. */
  async #coordinate(dim, length, signal) {
    const candidates = this.arrays.filter((a) => a.layout.shape.length === 1 && a.layout.shape[0] === length && a.layout.dimensions[0] === dim);
    const coord = candidates.find((a) => a.name === dim) ?? candidates.find((a) => a.coord);
    if (!coord || !(NUMERIC.test(coord.dtype) || coord.dtype === "timestamp_ns")) return null;
    if (!this.coordCache.has(coord.name)) {
      const read = await this.ds.read(coord.name, { signal });
      const attrs = await this.ds.arrayAttributes(coord.name);
      const time = coord.dtype === "timestamp_ns";
      this.coordCache.set(coord.name, {
        name: coord.name,
        time,
        down: !time && isDownwards(coord.name, attrs),
        units: typeof attrs.units === "string" ? attrs.units : "",
        values: time ? Float64Array.from(read.data, epochSeconds) : withoutFill(toNumbers(read.data), coord.layout.fillValue),
        format: time ? (v) => (Number.isNaN(v) ? "NaT" : isoTime(BigInt(Math.round(v * 1000)) * 1_000_000n)) : undefined,
      });
    }
    return this.coordCache.get(coord.name);
  }

  /**
   * The vertical axis of a profile with no declared coordinate: an array
   * of the same dimensions named like pressure or depth (Argo's PRES),
   * read over the same window.
   */
  async #profileAxis(array, start, count, signal) {
    const dims = array.layout.dimensions.join("\u0000");
    const twin = this.arrays.find((a) => a !== array && VERTICAL.test(a.name) && NUMERIC.test(a.dtype) && a.layout.dimensions.join("\u0000") === dims && a.layout.shape.join() === array.layout.shape.join());
    if (!twin) return null;
    const read = await this.ds.read(twin.name, { start, shape: count, signal });
    const attrs = await this.ds.arrayAttributes(twin.name);
    return {
      name: twin.name,
      time: false,
      down: isDownwards(twin.name, attrs),
      units: typeof attrs.units === "string" ? attrs.units : "",
      values: withoutFill(toNumbers(read.data), twin.layout.fillValue),
    };
  }

  async #heatmap(array, plot, { idx, win, axes, signal }) {
    const { shape, dimensions, fillValue } = array.layout;
    const rank = shape.length;
    // The two axes drawn: the user's choice, else the last two longer than one cell.
    const long = longAxes(shape);
    const valid = axes?.length === 2 && axes[0] !== axes[1] && axes.every((k) => Number.isInteger(k) && k >= 0 && k < rank);
    const [yAxis, xAxis] = valid ? axes : long.slice(-2);
    const coords = await Promise.all(shape.map((n, k) => this.#coordinate(dimensions[k], n, signal)));
    if (signal.aborted) return;
    const at = shape.map((n, k) => Math.min(Math.max(0, Math.round(idx?.[k] ?? 0)), n - 1));

    // The window in the (y, x) plane: the zoomed one, else all of it (capped).
    const full = () => ({ y0: 0, x0: 0, ny: Math.min(shape[yAxis], MAX_SIDE), nx: Math.min(shape[xAxis], MAX_SIDE) });
    let box = win?.length === 4 ? { y0: win[0], x0: win[1], ny: win[2], nx: win[3] } : full();
    box = {
      y0: clamp(box.y0, 0, shape[yAxis] - 1),
      x0: clamp(box.x0, 0, shape[xAxis] - 1),
      ny: clamp(box.ny, 1, MAX_SIDE),
      nx: clamp(box.nx, 1, MAX_SIDE),
    };
    box.ny = Math.min(box.ny, shape[yAxis] - box.y0);
    box.nx = Math.min(box.nx, shape[xAxis] - box.x0);

    // Controls: the axes drawn, colour map, colour range, panning, zoom reset.
    const controls = this.root.querySelector(".plot-controls");
    const dimName = (k) => dimensions[k] ?? `dim${k}`;
    const axisMenu = (cls, chosen, label) =>
      `<label>${label} <select class="${cls}">${shape.map((n, k) => `<option value="${k}"${k === chosen ? " selected" : ""}${n === 1 ? " disabled" : ""}>${esc(dimName(k))} (${n})</option>`).join("")}</select></label>`;
    controls.innerHTML = `
      ${axisMenu("y-axis", yAxis, "rows")}${axisMenu("x-axis", xAxis, "columns")}
      <span class="pan" role="group" aria-label="pan"><button type="button" data-pan="left" title="pan left">◀</button><button type="button" data-pan="up" title="pan up">▲</button><button type="button" data-pan="down" title="pan down">▼</button><button type="button" data-pan="right" title="pan right">▶</button></span>
      <label>colours <select class="cmap">${COLORMAPS.map((c) => `<option${c === this.cmap ? " selected" : ""}>${c}</option>`).join("")}</select></label>
      <label>range <select class="range"><option value="dataset"${this.rangeMode === "dataset" ? " selected" : ""}>whole array</option><option value="slice"${this.rangeMode === "slice" ? " selected" : ""}>this slice</option></select></label>
      <button type="button" class="reset" hidden>Reset zoom</button>`;
    const sliders = this.root.querySelector(".sliders");
    sliders.innerHTML = shape
      .map((n, k) =>
        k === yAxis || k === xAxis
          ? ""
          : `<label class="slider" data-axis="${k}"><span class="dim">${esc(dimName(k))}</span>
             <input type="range" min="0" max="${n - 1}" value="${at[k]}" ${n === 1 ? "disabled" : ""} aria-label="${esc(dimensions[k] ?? `dim${k}`)}">
             <output></output><span class="muted">${at[k] + 1} of ${n}</span></label>`,
      )
      .join("");
    plot.innerHTML = "";
    plot.dataset.kind = "heatmap";
    const heatmap = new Heatmap(plot);
    const note = this.root.querySelector(".plot-note");

    const label = (k) => {
      const c = coords[k];
      return c ? `${(c.format ?? number)(c.values[at[k]])}${c.units ? ` ${c.units}` : ""}` : `index ${at[k]}`;
    };
    for (const el of sliders.querySelectorAll(".slider")) el.querySelector("output").textContent = label(Number(el.dataset.axis));

    let reading = null;
    const draw = async () => {
      reading?.abort();
      const mine = new AbortController();
      reading = mine;
      const readSignal = AbortSignal.any([mine.signal, signal]);
      const start = shape.map((_, k) => (k === yAxis ? box.y0 : k === xAxis ? box.x0 : at[k]));
      const count = shape.map((_, k) => (k === yAxis ? box.ny : k === xAxis ? box.nx : 1));
      plot.removeAttribute("data-ready");
      const started = performance.now();
      let read;
      try {
        read = await this.#read(array, start, count, readSignal);
      } catch (error) {
        if (error?.code === "Aborted" || readSignal.aborted) {
          this.hooks.onAborted?.();
          return;
        }
        throw error;
      } finally {
        if (reading === mine) this.hooks.progress(null);
      }
      if (readSignal.aborted) return;
      const values = toNumbers(read.data);
      const range = this.#range(array, values, fillValue);
      const slice = (c, from, n) => (c ? { ...c, values: c.values.subarray(from, from + n) } : null);
      const axisOf = (k, from, n) => slice(coords[k], from, n) ?? { name: dimName(k) };
      heatmap.draw({
        values,
        ny: box.ny,
        nx: box.nx,
        y: axisOf(yAxis, box.y0, box.ny),
        x: axisOf(xAxis, box.x0, box.nx),
        range,
        cmap: this.cmap,
        fill: typeof fillValue === "number" && !Number.isNaN(fillValue) ? fillValue : null,
        units: this.units,
        origin: { y0: box.y0, x0: box.x0 },
      });
      const zoomed = box.y0 > 0 || box.x0 > 0 || box.ny < shape[yAxis] || box.nx < shape[xAxis];
      controls.querySelector(".reset").hidden = !zoomed;
      const pan = (dir, can) => (controls.querySelector(`[data-pan="${dir}"]`).disabled = !can);
      pan("left", box.x0 > 0);
      pan("right", box.x0 + box.nx < shape[xAxis]);
      // Rows drawn north-up run the other way on screen.
      const up = heatmap.flipY ? box.y0 + box.ny < shape[yAxis] : box.y0 > 0;
      const down = heatmap.flipY ? box.y0 > 0 : box.y0 + box.ny < shape[yAxis];
      pan("up", up);
      pan("down", down);
      plot.dataset.window = JSON.stringify({ start, count });
      note.textContent =
        `window [${start.join(", ")}] + [${count.join(", ")}] of [${shape.join(", ")}] · ${read.data.length.toLocaleString("en")} cells, ` +
        `${heatmap.missing.toLocaleString("en")} missing · read in ${Math.round(performance.now() - started)} ms` +
        (zoomed ? "" : " · drag on the map to zoom");
      plot.dataset.ready = array.name;
      const chosen = valid && (yAxis !== long.at(-2) || xAxis !== long.at(-1));
      this.hooks.onState({ idx: rank > 2 ? at : null, win: zoomed ? [box.y0, box.x0, box.ny, box.nx] : null, axes: chosen ? [yAxis, xAxis] : null });
    };

    // The panel's elements outlive this plot: its listeners go with it.
    const listening = { signal };
    sliders.addEventListener("input", (event) => {
      const el = event.target.closest(".slider");
      if (!el) return;
      const k = Number(el.dataset.axis);
      at[k] = Number(event.target.value);
      el.querySelector("output").textContent = label(k);
      el.querySelector(".muted").textContent = `${at[k] + 1} of ${shape[k]}`;
      draw().catch((e) => this.hooks.onProblem(e));
    }, listening);
    controls.addEventListener("click", (event) => {
      const button = event.target.closest("[data-pan]");
      if (!button) return;
      // Half a window a step; "up" means towards the top of the screen.
      const dir = button.dataset.pan;
      const towardsEnd = dir === "right" || (dir === "up" ? heatmap.flipY : dir === "down" && !heatmap.flipY);
      if (dir === "left" || dir === "right") box.x0 = clamp(box.x0 + (towardsEnd ? 1 : -1) * Math.ceil(box.nx / 2), 0, shape[xAxis] - box.nx);
      else box.y0 = clamp(box.y0 + (towardsEnd ? 1 : -1) * Math.ceil(box.ny / 2), 0, shape[yAxis] - box.ny);
      draw().catch((e) => this.hooks.onProblem(e));
    }, listening);
    controls.addEventListener("change", (event) => {
      if (event.target.matches(".y-axis, .x-axis")) {
        let y = Number(controls.querySelector(".y-axis").value);
        let x = Number(controls.querySelector(".x-axis").value);
        // Picking the other menu's axis swaps the two.
        if (y === x) [y, x] = event.target.matches(".y-axis") ? [y, yAxis] : [xAxis, x];
        this.plot(array, { idx: at, axes: [y, x] }).catch((e) => this.hooks.onProblem(e));
        return;
      }
      if (event.target.matches(".cmap")) this.cmap = event.target.value;
      if (event.target.matches(".range")) this.rangeMode = event.target.value;
      draw().catch((e) => this.hooks.onProblem(e));
    }, listening);
    controls.querySelector(".reset").addEventListener("click", () => {
      box = full();
      draw().catch((e) => this.hooks.onProblem(e));
    });
    heatmap.onZoom = (next) => {
      box = next;
      draw().catch((e) => this.hooks.onProblem(e));
    };
    await draw();
  }

  #range(array, values, fillValue) {
    const s = array.stats;
    if (this.rangeMode === "dataset" && s && typeof s.min === "number" && typeof s.max === "number" && Number.isFinite(s.min) && Number.isFinite(s.max)) {
      return [s.min, s.max];
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of values) {
      if (Number.isNaN(v) || v === fillValue) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    return lo <= hi ? [lo, hi] : [0, 1];
  }

  /** An array with one axis longer than a cell, against that axis' coordinate. */
  async #line(array, plot, signal) {
    const { shape, dimensions, fillValue } = array.layout;
    const axis = longAxes(shape)[0];
    const n = shape[axis];
    const count = Math.min(n, MAX_LINE);
    const start = shape.map(() => 0);
    const window = shape.map((m, k) => (k === axis ? count : 1));
    const read = await this.#read(array, start, window, signal);
    if (signal.aborted) return;
    const dim = dimensions[axis] ?? "index";
    let coord = array.coord ? null : await this.#coordinate(dim, n, signal);
    if (coord) coord = { ...coord, values: coord.values.subarray(0, count) };
    else if (!array.coord) coord = await this.#profileAxis(array, start, window, signal);
    if (signal.aborted) return;
    const y = withoutFill(toNumbers(read.data), fillValue);
    const x = coord ? coord.values : Float64Array.from({ length: count }, (_, k) => k);
    const xLabel = coord ? (coord.units ? `${coord.name} (${coord.units})` : coord.name) : `${dim} index`;
    const yLabel = this.units ? `${array.name} (${this.units})` : array.name;
    plot.innerHTML = "";
    plot.dataset.kind = coord?.down ? "profile" : "line";
    this.chart = lineChart(plot, { x, y, xLabel, yLabel, time: coord?.time ?? false, vertical: coord?.down ?? false });
    let missing = 0;
    for (const v of y) if (Number.isNaN(v)) missing++;
    const shapeNote = shape.length > 1 ? ` along ${dim} of [${shape.join(", ")}]` : "";
    this.root.querySelector(".plot-note").textContent =
      `${count.toLocaleString("en")} values${count < n ? ` (first ${count} of ${n})` : ""}${shapeNote}, ${missing} missing · against ${coord ? `${array.coord ? "" : coord.down ? "depth " : "coordinate "}${coord.name}` : "index"}${coord?.down ? "" : " · drag to zoom, double-click to reset"}`;
  }

  async #values(array, plot, signal) {
    const shape = array.layout.shape;
    const total = shape.reduce((a, b) => a * b, 1);
    const count = shape.length === 0 ? undefined : Math.min(shape[0], 500);
    const read = count === undefined ? await this.#read(array, undefined, undefined, signal) : await this.#read(array, [0, ...shape.slice(1).map(() => 0)], [count, ...shape.slice(1)], signal);
    if (signal.aborted) return;
    plot.dataset.kind = "values";
    const items = Array.from(read.data, (v) => show(v, array.dtype));
    if (shape.length === 0) {
      plot.innerHTML = `<div class="scalar">${esc(items[0] ?? "")}${this.units ? ` <span class="muted">${esc(this.units)}</span>` : ""}</div>`;
      return;
    }
    plot.innerHTML = `<ol class="values" start="0">${items.map((v) => `<li>${esc(v)}</li>`).join("")}</ol>`;
    this.root.querySelector(".plot-note").textContent = `${items.length.toLocaleString("en")} of ${total.toLocaleString("en")} values`;
  }
}

/** Attributes as a key/value table: `json:` values decoded, coordinates named. */
function attributeTable(attrs, declared) {
  const dtypes = new Map((declared ?? []).map((a) => [a.key, a.dtype]));
  const rows = Object.entries(attrs).map(([key, value]) => {
    if (key === COORDS_KEY) {
      const list = coordinateNames(attrs);
      return `<tr><th>${esc(key)}</th><td>${list.map((c) => `<code>${esc(c)}</code>`).join(" ")} <span class="badge">coordinates</span></td><td class="muted">${esc(dtypes.get(key) ?? "")}</td></tr>`;
    }
    const { text, json } = showAttr(value);
    return `<tr><th>${esc(key)}</th><td>${esc(text)}${json ? ' <span class="badge">json</span>' : ""}</td><td class="muted">${esc(dtypes.get(key) ?? "")}</td></tr>`;
  });
  return rows.length ? `<table class="attrs"><tbody>${rows.join("")}</tbody></table>` : `<p class="muted">none</p>`;
}

/** Numbers with the array's numeric fill value (Argo's 99999) turned into NaN, in place. */
function withoutFill(values, fill) {
  if (typeof fill !== "number" || Number.isNaN(fill)) return values;
  for (let k = 0; k < values.length; k++) if (values[k] === fill) values[k] = NaN;
  return values;
}

/** Any typed array (BigInt ones included) as Float64Array. */
export function toNumbers(data) {
  if (data instanceof Float64Array) return data;
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) return Float64Array.from(data, Number);
  return Float64Array.from(data);
}

function clamp(v, lo, hi) {
  return Math.min(Math.max(Number(v) || 0, lo), hi);
}
