/**
 * The catalogue: every live dataset as a row, with chosen dataset attributes
 * (`attributesByDataset`) and the statistics of one array
 * (`arrayStatsByDataset`) as columns. Filtering and sorting work on an index
 * array; only the rows in view exist in the DOM (a fixed row height and a
 * reused pool of row elements), so 10,000+ rows scroll like 10.
 *
 * Past LAZY_ABOVE datasets the columns are not loaded for the whole
 * collection (at a million, `attributesByDataset` and `arrayStatsByDataset`
 * would stream two 320 MB segment footers): the rows in view ask for their
 * own attributes and statistics, which a ranged footer answers in a request
 * or two for a screenful. Sorting and filtering then work by name only.
 */
import { compare, decodeAttr, esc, number, show, showAttr } from "./format.js";

const ROW = 28;
const OVERSCAN = 8;
/** Above this many datasets, columns load for the rows in view only. */
export const LAZY_ABOVE = 20_000;
const STAT_COLUMNS = [
  { id: "min", label: "min" },
  { id: "max", label: "max" },
  { id: "nulls", label: "nulls" },
  { id: "count", label: "count" },
];

export class Catalogue {
  /**
   * @param {HTMLElement} root  holds the toolbar, the header and the viewport
   * @param {{onSelect: (name: string) => void, onProblem: (error: unknown) => void}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.head = root.querySelector(".thead");
    this.viewport = root.querySelector(".viewport");
    this.spacer = root.querySelector(".spacer");
    this.rowsBox = root.querySelector(".rows");
    this.count = root.querySelector(".row-count");
    this.pool = [];
    this.names = [];
    this.view = [];
    this.attrColumns = [];
    this.attrValues = new Map(); // key -> {name: value}
    this.statsArray = null;
    this.stats = new Map(); // dataset -> stats
    this.statsDtype = null;
    this.sort = { column: null, descending: false };
    this.filters = { name: "", attrs: "" };
    this.selected = null;
    this.generation = 0;
    this.lazy = false;
    this.rowAttrs = new Map(); // dataset -> its attributes (lazy mode)
    this.asked = new Set(); // datasets whose columns are loading or loaded (lazy mode)
    this.viewport.addEventListener("scroll", () => this.#schedule(), { passive: true });
    new ResizeObserver(() => this.#schedule()).observe(this.viewport);
    this.rowsBox.addEventListener("click", (event) => {
      const row = event.target.closest(".row");
      if (row?.dataset.name) this.hooks.onSelect(row.dataset.name);
    });
    this.viewport.addEventListener("keydown", (event) => this.#key(event));
    this.head.addEventListener("click", (event) => {
      const cell = event.target.closest("[data-column]");
      if (!cell) return;
      const column = cell.dataset.column;
      if (this.lazy && column !== "name") return; // only names are all known
      this.sort = { column, descending: this.sort.column === column ? !this.sort.descending : false };
      this.#apply();
    });
  }

  /** No collection: no rows, no columns. */
  clear() {
    this.generation++;
    this.atlas = null;
    this.names = [];
    this.attrValues = new Map();
    this.stats = new Map();
    this.attrColumns = [];
    this.statsArray = null;
    this.selected = null;
    this.#apply();
  }

  /** A new collection: its live dataset names and what to show of them. */
  reset(atlas, names, { attrColumns, statsArray, statsDtype }) {
    this.generation++;
    this.atlas = atlas;
    this.names = names;
    this.lazy = names.length > LAZY_ABOVE;
    this.attrValues = new Map();
    this.rowAttrs = new Map();
    this.asked = new Set();
    this.stats = new Map();
    this.sort = { column: null, descending: false };
    this.selected = null;
    this.viewport.scrollTop = 0;
    this.attrColumns = [];
    this.statsArray = null;
    this.#apply();
    return Promise.all([this.setAttrColumns(attrColumns), this.setStatsArray(statsArray, statsDtype)]);
  }

  /** Shows these dataset attributes as columns, loading any not loaded yet. */
  async setAttrColumns(keys) {
    this.attrColumns = keys;
    this.asked = new Set(); // lazy mode: rows in view ask again for what they lack
    this.#header();
    this.#apply();
    await this.#loadAttrs(keys);
  }

  async setStatsArray(array, dtype) {
    const generation = this.generation;
    this.statsArray = array;
    this.statsDtype = dtype;
    this.stats = new Map();
    this.asked = new Set();
    this.#header();
    this.#apply();
    if (!array || this.lazy) return;
    try {
      const list = await this.atlas.arrayStatsByDataset(array);
      if (generation !== this.generation || array !== this.statsArray) return;
      this.stats = new Map(list.map((s) => [s.dataset, s]));
      this.#apply();
    } catch (error) {
      this.hooks.onProblem(error);
    }
  }

  setFilters(filters) {
    this.filters = { ...this.filters, ...filters };
    const keys = parseAttrFilter(this.filters.attrs).map((t) => t.key).filter((k) => k && !STAT_COLUMNS.some((c) => c.id === k));
    this.#loadAttrs(keys).then(() => this.#apply());
    this.#apply();
  }

  /** Highlights `name` and scrolls it into view. */
  select(name) {
    this.selected = name;
    const at = this.view.indexOf(this.names.indexOf(name));
    if (at >= 0) {
      const top = at * ROW;
      if (top < this.viewport.scrollTop || top + ROW > this.viewport.scrollTop + this.viewport.clientHeight) {
        this.viewport.scrollTop = top - this.viewport.clientHeight / 2;
      }
    }
    this.#render();
  }

  async #loadAttrs(keys) {
    if (this.lazy) return; // the rows in view load their own
    const generation = this.generation;
    const missing = keys.filter((k) => !this.attrValues.has(k));
    await Promise.all(
      missing.map(async (key) => {
        try {
          const values = await this.atlas.attributesByDataset(null, key);
          if (generation === this.generation) this.attrValues.set(key, values);
        } catch (error) {
          this.hooks.onProblem(error);
        }
      }),
    );
    if (missing.length && generation === this.generation) this.#apply();
  }

  /** The value of column `id` for dataset `name`. */
  #value(id, name) {
    if (id === "name") return name;
    if (id.startsWith("attr:")) {
      const v = this.lazy ? this.rowAttrs.get(name)?.[id.slice(5)] : this.attrValues.get(id.slice(5))?.[name];
      return decodeAttr(v).value;
    }
    const s = this.stats.get(name);
    if (!s) return undefined;
    return { min: s.min, max: s.max, nulls: s.nullCount, count: s.rowCount }[id.slice(5)];
  }

  #columns() {
    return [
      { id: "name", label: "dataset" },
      ...this.attrColumns.map((key) => ({ id: `attr:${key}`, label: key })),
      ...(this.statsArray ? STAT_COLUMNS.map((c) => ({ id: `stat:${c.id}`, label: c.label, title: `${c.label} of ${this.statsArray}`, numeric: true })) : []),
    ];
  }

  /** Column widths that fit the longest text among a spread of rows. */
  #widths(columns) {
    const step = Math.max(1, Math.floor(this.view.length / 300));
    this.measure ??= document.createElement("canvas").getContext("2d");
    this.measure.font = getComputedStyle(this.root).font;
    return columns.map((c, k) => {
      let longest = c.label + "  ▲";
      for (let at = 0; at < this.view.length; at += step) {
        const text = this.#text(c.id, this.names[this.view[at]]);
        if (text.length > longest.length) longest = text;
      }
      const px = Math.ceil(this.measure.measureText(longest).width) + 16;
      return Math.min(k === 0 ? 260 : 220, Math.max(44, px));
    });
  }

  #header() {
    const columns = this.#columns();
    const widths = this.#widths(columns);
    // The name column takes what is left over.
    this.root.style.setProperty("--columns", widths.map((w, k) => (k === 0 ? `minmax(${w}px, 1fr)` : `${w}px`)).join(" "));
    this.root.style.setProperty("--min-width", `${widths.reduce((a, b) => a + b, 0)}px`);
    this.head.innerHTML = columns
      .map((c) => {
        const arrow = this.sort.column === c.id ? (this.sort.descending ? " ▼" : " ▲") : "";
        return `<div class="cell${c.numeric ? " num" : ""}" data-column="${esc(c.id)}" title="sort by ${esc(c.title ?? c.label)}">${esc(c.label)}${arrow}</div>`;
      })
      .join("");
    this.pool.forEach((row) => row.remove());
    this.pool = [];
  }

  /** Filters and sorts into `this.view` (indices into `names`), then renders. */
  #apply() {
    const needle = this.filters.name.trim().toLowerCase();
    const tests = parseAttrFilter(this.filters.attrs);
    const view = [];
    for (let k = 0; k < this.names.length; k++) {
      const name = this.names[k];
      if (needle && !name.toLowerCase().includes(needle)) continue;
      if (tests.length && !this.lazy && !tests.every((t) => this.#passes(t, name))) continue;
      view.push(k);
    }
    if (this.sort.column) {
      const id = this.sort.column;
      const sign = this.sort.descending ? -1 : 1;
      const keys = new Map(view.map((k) => [k, this.#value(id, this.names[k])]));
      // Missing values go last in either direction.
      const missing = (v) => v === undefined || v === null || (typeof v === "number" && Number.isNaN(v));
      view.sort((a, b) => {
        const [ka, kb] = [keys.get(a), keys.get(b)];
        if (missing(ka) || missing(kb)) return missing(ka) - missing(kb) || a - b;
        return compare(ka, kb) * sign || a - b;
      });
    }
    this.view = view;
    this.spacer.style.height = `${view.length * ROW}px`;
    const hidden = this.atlas ? this.atlas.deletedCount : 0;
    this.count.textContent = !this.atlas
      ? ""
      : `${view.length.toLocaleString("en")} of ${this.names.length.toLocaleString("en")} datasets` +
      (hidden ? ` · ${hidden} hidden by deleted.mask` : "") +
      (this.lazy ? " · columns load as rows come into view; sort and filter by name" : "");
    this.count.dataset.shown = String(view.length);
    this.#header();
    this.#render();
  }

  #passes(test, name) {
    if (!test.key) {
      return this.attrColumns.some((key) => String(show(this.#value(`attr:${key}`, name))).toLowerCase().includes(test.value.toLowerCase()));
    }
    const id = STAT_COLUMNS.some((c) => c.id === test.key) ? `stat:${test.key}` : `attr:${test.key}`;
    const v = this.#value(id, name);
    if (v === undefined || v === null) return test.op === "!=";
    const numeric = typeof v === "number" || typeof v === "bigint";
    const want = numeric && test.value !== "" && !Number.isNaN(Number(test.value)) ? Number(test.value) : test.value;
    const have = numeric ? Number(v) : String(show(v));
    switch (test.op) {
      case "=":
        return typeof want === "number" ? have === want : String(have).toLowerCase() === String(want).toLowerCase();
      case "!=":
        return typeof want === "number" ? have !== want : String(have).toLowerCase() !== String(want).toLowerCase();
      case "~":
        return String(have).toLowerCase().includes(String(want).toLowerCase());
      case ">":
        return compare(have, want) > 0;
      case "<":
        return compare(have, want) < 0;
      case ">=":
        return compare(have, want) >= 0;
      case "<=":
        return compare(have, want) <= 0;
      default:
        return true;
    }
  }

  #schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.#render();
    });
  }

  #render() {
    const columns = this.#columns();
    const height = this.viewport.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.viewport.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(this.view.length, Math.ceil((this.viewport.scrollTop + height) / ROW) + OVERSCAN);
    while (this.pool.length < last - first) {
      const row = document.createElement("div");
      row.className = "row";
      row.innerHTML = columns.map((c) => `<div class="cell${c.numeric ? " num" : ""}"></div>`).join("");
      this.rowsBox.append(row);
      this.pool.push(row);
    }
    this.rowsBox.style.transform = `translateY(${first * ROW}px)`;
    for (let p = 0; p < this.pool.length; p++) {
      const row = this.pool[p];
      const at = first + p;
      if (at >= last) {
        row.hidden = true;
        continue;
      }
      row.hidden = false;
      const name = this.names[this.view[at]];
      row.dataset.name = name;
      row.classList.toggle("selected", name === this.selected);
      row.classList.toggle("odd", at % 2 === 1);
      const cells = row.children;
      for (let c = 0; c < columns.length; c++) {
        const text = this.#text(columns[c].id, name);
        if (cells[c].textContent !== text) {
          cells[c].textContent = text;
          cells[c].title = text;
        }
      }
    }
    if (this.lazy) this.#loadRows(this.view.slice(first, last).map((k) => this.names[k]));
  }

  /** Lazy mode: the attributes and statistics of `names` not asked for yet, all at once. */
  async #loadRows(names) {
    const wanted = names.filter((n) => !this.asked.has(n));
    if (!wanted.length || (!this.attrColumns.length && !this.statsArray)) return;
    const { generation, statsArray } = this;
    for (const name of wanted) this.asked.add(name);
    const loads = wanted.map(async (name) => {
      const ds = this.atlas.dataset(name);
      const [attrs, stats] = await Promise.all([
        this.attrColumns.length && !this.rowAttrs.has(name) ? ds.attributes() : null,
        statsArray && !this.stats.has(name) && ds.listArrays().includes(statsArray) ? ds.stats(statsArray) : null,
      ]);
      if (generation !== this.generation) return;
      if (attrs) this.rowAttrs.set(name, attrs);
      if (stats && statsArray === this.statsArray) this.stats.set(name, { dataset: name, ...stats });
    });
    try {
      await Promise.all(loads);
    } catch (error) {
      if (generation === this.generation) this.hooks.onProblem(error);
    }
    if (generation === this.generation) this.#schedule();
  }

  #text(id, name) {
    if (id === "name") return name;
    if (id.startsWith("attr:")) {
      const raw = this.lazy ? this.rowAttrs.get(name) : this.attrValues.get(id.slice(5));
      if (!raw) return "…";
      const v = this.lazy ? raw[id.slice(5)] : raw[name];
      return v === undefined ? "" : showAttr(v).text;
    }
    if (this.lazy && this.statsArray && !this.stats.has(name)) return this.asked.has(name) ? "" : "…";
    if (!this.stats.size) return this.statsArray ? "…" : "";
    const v = this.#value(id, name);
    if (v === undefined || v === null) return "";
    return id === "stat:min" || id === "stat:max" ? show(v, this.statsDtype) : number(v);
  }

  #key(event) {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    event.preventDefault();
    const at = this.view.indexOf(this.names.indexOf(this.selected));
    const next = Math.max(0, Math.min(this.view.length - 1, at + (event.key === "ArrowDown" ? 1 : -1)));
    if (this.view.length) this.hooks.onSelect(this.names[this.view[next]]);
  }
}

/**
 * `month=3 float_type~apex elevation>1000 min<0 word` -> tests. A bare word
 * matches any shown attribute column.
 */
export function parseAttrFilter(text) {
  const tests = [];
  for (const token of text.split(/[\s,]+/).filter(Boolean)) {
    const m = /^([^=!<>~]+)(!=|>=|<=|=|>|<|~)(.*)$/.exec(token);
    tests.push(m ? { key: m[1], op: m[2], value: m[3] } : { key: null, op: "~", value: token });
  }
  return tests;
}
