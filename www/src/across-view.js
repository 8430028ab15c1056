/**
 * One array across every dataset: its per-dataset min and max
 * (`arrayStatsByDataset`, one segment read, no data blocks) against a
 * per-dataset x: the dataset's time coordinate, a numeric or date
 * attribute, or its position in the collection.
 */
import { acrossChart } from "./charts.js";
import { decodeAttr, epochSeconds, esc } from "./format.js";

const NUMERIC = /^(u?int(8|16|32|64)|float(32|64))$/;

export class AcrossView {
  /**
   * @param {HTMLElement} root
   * @param {{onPick: (name: string) => void, onState: (patch: object) => void, onProblem: (e: unknown) => void}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    root.addEventListener("change", async (event) => {
      if (!event.target.matches(".variable, .x")) return;
      const v = this.root.querySelector(".variable").value;
      const select = this.root.querySelector(".x");
      try {
        // A new array keeps a time axis, but the one its datasets have.
        if (event.target.matches(".variable") && select.value.startsWith("time:")) select.value = await this.#bestTime(v, this.times);
        this.hooks.onState({ variable: v, x: select.value });
        await this.#draw(v, select.value);
      } catch (error) {
        this.hooks.onProblem(error);
      }
    });
  }

  /**
   * @param {import("atlas-wasm").Atlas} atlas
   * @param {{names: string[], arrays: Map<string, {dtype: string, count: number}>, attributes: Map<string, {dtype: string, count: number}>}} catalogue
   * @param {{variable?: string, x?: string}} want
   */
  async show(atlas, catalogue, want) {
    this.atlas = atlas;
    this.catalogue = catalogue;
    this.generation = (this.generation ?? 0) + 1;
    this.chart?.destroy();
    this.chart = null;
    const variables = [...catalogue.arrays].filter(([, a]) => NUMERIC.test(a.dtype)).map(([name]) => name);
    const times = [...catalogue.arrays].filter(([, a]) => a.dtype === "timestamp_ns").map(([name]) => name);
    this.times = times;
    const attrs = [...catalogue.attributes].filter(([key, a]) => key !== "_pyatlas_coords" && (NUMERIC.test(a.dtype) || a.dtype === "string"));
    const variable = variables.includes(want.variable) ? want.variable : (want.fallback && variables.includes(want.fallback) ? want.fallback : variables[0]);
    const xs = [...times.map((t) => `time:${t}`), ...attrs.map(([k]) => `attr:${k}`), "ordinal"];
    const x = xs.includes(want.x) ? want.x : await this.#bestTime(variable, times);
    this.root.innerHTML = `
      <header class="ds-head"><h2>Across datasets</h2><span class="muted">per-dataset statistics, read from each array's segment index: no data blocks</span></header>
      <div class="plot-head">
        <label>array <select class="variable">${variables.map((v) => `<option${v === variable ? " selected" : ""}>${esc(v)}</option>`).join("")}</select></label>
        <label>against <select class="x">
          ${times.map((t) => `<option value="time:${esc(t)}"${x === `time:${t}` ? " selected" : ""}>time: ${esc(t)}</option>`).join("")}
          ${attrs.map(([k]) => `<option value="attr:${esc(k)}"${x === `attr:${k}` ? " selected" : ""}>attribute: ${esc(k)}</option>`).join("")}
          <option value="ordinal"${x === "ordinal" ? " selected" : ""}>position in collection</option>
        </select></label>
      </div>
      <div class="plot" id="across-plot"></div>
      <div class="plot-note muted"></div>`;
    this.hooks.onState({ variable, x });
    if (variable) await this.#draw(variable, x);
  }

  /** The timestamp array that most datasets holding `variable` also hold. */
  async #bestTime(variable, times) {
    if (!variable || !times.length) return "ordinal";
    const have = new Set((await this.atlas.arrayStatsByDataset(variable)).map((s) => s.dataset));
    let best = "ordinal";
    let most = 0;
    for (const t of times) {
      const n = (await this.atlas.arrayStatsByDataset(t)).filter((s) => have.has(s.dataset)).length;
      if (n > most) {
        most = n;
        best = `time:${t}`;
      }
    }
    return best;
  }

  async #draw(variable, x) {
    const generation = ++this.generation;
    const plot = this.root.querySelector(".plot");
    plot.removeAttribute("data-ready");
    const stats = await this.atlas.arrayStatsByDataset(variable);
    const xOf = await this.#xValues(x);
    if (generation !== this.generation) return;
    const rows = stats.map((s) => ({ name: s.dataset, x: xOf(s.dataset), min: Number(s.min), max: Number(s.max) }));
    const kept = rows.filter((r) => Number.isFinite(r.x) && (Number.isFinite(r.min) || Number.isFinite(r.max)));
    this.chart?.destroy();
    plot.innerHTML = "";
    const time = x.startsWith("time:") || this.dateAttr;
    const xLabel = x === "ordinal" ? "position" : x.slice(5);
    this.chart = acrossChart(plot, {
      x: kept.map((r) => r.x),
      min: kept.map((r) => r.min),
      max: kept.map((r) => r.max),
      xLabel,
      yLabel: variable,
      time,
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

  /** dataset name -> x value, for the chosen axis. */
  async #xValues(x) {
    this.dateAttr = false;
    if (x === "ordinal") {
      const at = new Map(this.catalogue.names.map((n, k) => [n, k]));
      return (name) => at.get(name);
    }
    if (x.startsWith("time:")) {
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
