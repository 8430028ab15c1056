/**
 * The dashboard: opens a collection (`?url=` or a dropped file), fills the
 * catalogue, and routes between datasets. Each navigation aborts the reads
 * of the view it leaves (AbortSignal); the address bar always holds a link
 * to what is on screen.
 */
import "./style.css";
import { AcrossView } from "./across-view.js";
import { Catalogue, LAZY_ABOVE } from "./catalogue.js";
import { DatasetView, VERTICAL } from "./dataset-view.js";
import { COORDS_KEY, bytes, esc, isoTime, millis } from "./format.js";
import { Meter, Problem, openFiles, openUrl } from "./session.js";

const $ = (selector) => document.querySelector(selector);
const NUMERIC = /^(u?int(8|16|32|64)|float(32|64))$/;
/** Attributes that make poor default columns: the same text everywhere, or long. */
const DULL = new Set([COORDS_KEY, "title", "Conventions", "history", "source", "references", "comment", "institution", "summary", "license"]);

const app = {
  atlas: null,
  meter: new Meter(),
  label: "",
  opened: null,
  names: [],
  scan: { arrays: new Map(), attributes: new Map() },
  openAbort: null,
  navAbort: null,
  aborted: 0,
  tab: "dataset",
};
window.dashboard = app; // for people poking around in devtools, and for the tests

const catalogue = new Catalogue($("#catalogue"), {
  onSelect: (name) => selectDataset(name, { push: true }),
  onProblem: report,
});
const datasetView = new DatasetView($("#dataset-view"), {
  progress,
  onState: (patch) => setParams(patch),
  onProblem: report,
  onAborted: () => app.aborted++,
});
const acrossView = new AcrossView($("#across-view"), {
  onPick: (name) => {
    showTab("dataset");
    selectDataset(name, { push: true });
  },
  onState: (patch) => setParams(patch),
  onProblem: report,
});

// ---- the address bar ------------------------------------------------------

function params() {
  return new URLSearchParams(location.search);
}

function setParams(patch, push = false) {
  const p = params();
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined || value === "") p.delete(key);
    else p.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  const search = p.toString().replace(/%2F/g, "/").replace(/%3A/g, ":").replace(/%2C/g, ",");
  if (`?${search}` === location.search || (!search && !location.search)) return;
  history[push ? "pushState" : "replaceState"](null, "", `${location.pathname}${search ? `?${search}` : ""}`);
}

const numbers = (text) => (text ? text.split(",").map(Number).filter(Number.isFinite) : undefined);

// ---- opening --------------------------------------------------------------

$("#open-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const url = $("#url").value.trim();
  if (!url) return;
  setParams({ url, ds: null, array: null, idx: null, win: null, axes: null, variable: null, x: null, point: null, map: null }, true);
  open({ url });
});
$("#file").addEventListener("change", (event) => {
  if (event.target.files.length) open({ files: event.target.files });
});
document.addEventListener("click", (event) => {
  const link = event.target.closest("a.sample");
  if (!link) return;
  event.preventDefault();
  $("#url").value = new URL(link.getAttribute("href"), location.href).searchParams.get("url");
  $("#open-form").requestSubmit();
});

let dragDepth = 0;
window.addEventListener("dragenter", (event) => {
  if (![...(event.dataTransfer?.types ?? [])].includes("Files")) return;
  dragDepth++;
  $("#drop").hidden = false;
});
window.addEventListener("dragleave", () => {
  if (--dragDepth <= 0) {
    dragDepth = 0;
    $("#drop").hidden = true;
  }
});
window.addEventListener("dragover", (event) => event.preventDefault());
window.addEventListener("drop", (event) => {
  event.preventDefault();
  dragDepth = 0;
  $("#drop").hidden = true;
  if (event.dataTransfer?.files.length) open({ files: event.dataTransfer.files });
});

/** Opens a collection from `{url}` or `{files}`, replacing the one open. */
async function open(source) {
  app.openAbort?.abort();
  app.navAbort?.abort();
  const abort = new AbortController();
  app.openAbort = abort;
  hideProblem();
  app.atlas?.close();
  app.atlas = null;
  app.names = [];
  app.scan = { arrays: new Map(), attributes: new Map() };
  catalogue.clear();
  fillChoosers([], null);
  app.meter = new Meter();
  app.meter.addEventListener("change", status);
  app.opened = null;
  app.label = source.url ?? [...source.files].map((f) => f.name).join(" + ");
  document.body.dataset.state = "opening";
  if (source.url) $("#url").value = source.url;
  else setParams({ url: null, ds: null, array: null, idx: null, win: null, axes: null }, true);
  status();
  datasetView.clear(`<div class="empty"><p>Opening ${esc(app.label)}…</p></div>`);

  let result;
  try {
    result = source.url ? await openUrl(source.url, { signal: abort.signal, meter: app.meter }) : await openFiles(source.files, { signal: abort.signal, meter: app.meter });
  } catch (error) {
    if (abort.signal.aborted || error?.code === "Aborted") return;
    document.body.dataset.state = "failed";
    datasetView.clear(landing());
    report(error);
    status();
    return;
  }
  if (abort.signal.aborted) {
    result.atlas.close();
    return;
  }
  const { atlas, ms, label } = result;
  app.atlas = atlas;
  app.label = label;
  app.opened = { ms, requests: app.meter.requests, bytes: app.meter.bytes };
  app.names = atlas.listDatasets();
  status();

  try {
    const coords = await coordinateNames(atlas, app.names);
    scanSchemas(atlas, app.names, abort.signal);
    const columns = defaultColumns();
    const stats = defaultStatsArray(coords);
    fillChoosers(columns, stats);
    const loading = catalogue.reset(atlas, app.names, { attrColumns: columns, statsArray: stats, statsDtype: app.scan.arrays.get(stats)?.dtype });
    document.body.dataset.state = "open";
    const p = params();
    showTab(p.get("tab") === "across" ? "across" : "dataset", false);
    const first = p.get("ds") && atlas.hasDataset(p.get("ds")) ? p.get("ds") : app.names[0];
    if (first) await selectDataset(first, { array: p.get("array"), idx: numbers(p.get("idx")), win: numbers(p.get("win")), axes: numbers(p.get("axes")) });
    else datasetView.clear(`<div class="empty"><p>This collection has no live datasets.</p></div>`);
    await loading;
  } catch (error) {
    if (!abort.signal.aborted) report(error);
  }
}

/**
 * Every coordinate name the datasets declare: one read of `_datasets`, or,
 * past LAZY_ABOVE datasets, those the first 64 declare (a page of rows).
 */
async function coordinateNames(atlas, names) {
  const all = new Set();
  const lists =
    names.length > LAZY_ABOVE
      ? await Promise.all(names.slice(0, 64).map(async (name) => (await atlas.dataset(name).attributes())[COORDS_KEY]))
      : Object.values(await atlas.attributesByDataset(null, COORDS_KEY));
  for (const raw of lists) {
    if (raw === undefined) continue;
    try {
      for (const name of JSON.parse(String(raw).replace(/^json:/, ""))) all.add(String(name));
    } catch {
      // not a list: no coordinates to add
    }
  }
  return all;
}

/**
 * Array and attribute names with their dtypes and how many datasets have
 * them. Schemas need no I/O, but 10,000 of them take a while: a spread-out
 * sample first, the rest in idle slices.
 */
function scanSchemas(atlas, names, signal) {
  const scan = { arrays: new Map(), attributes: new Map() };
  app.scan = scan;
  const add = (map, key, dtype) => {
    const entry = map.get(key);
    if (entry) entry.count++;
    else map.set(key, { dtype, count: 1 });
  };
  const visit = (k) => {
    const schema = atlas.dataset(names[k]).schema;
    for (const a of schema.arrays) add(scan.arrays, a.name, a.dtype);
    for (const a of schema.attributes) add(scan.attributes, a.key, a.dtype);
  };
  const step = Math.max(1, Math.floor(names.length / 500));
  const seen = new Uint8Array(names.length);
  for (let k = 0; k < names.length; k += step) {
    visit(k);
    seen[k] = 1;
  }
  if (step === 1) return;
  // Counts so far are of the sample; scale them until the full pass is done.
  for (const map of [scan.arrays, scan.attributes]) for (const e of map.values()) e.count *= step;
  const full = { arrays: new Map(), attributes: new Map() };
  let k = 0;
  const slice = () => {
    if (signal.aborted || app.scan !== scan) return;
    const end = Math.min(names.length, k + 1000);
    for (; k < end; k++) {
      const schema = atlas.dataset(names[k]).schema;
      for (const a of schema.arrays) add(full.arrays, a.name, a.dtype);
      for (const a of schema.attributes) add(full.attributes, a.key, a.dtype);
    }
    if (k < names.length) setTimeout(slice, 0);
    else {
      scan.arrays = full.arrays;
      scan.attributes = full.attributes;
      fillChoosers(catalogue.attrColumns, catalogue.statsArray);
    }
  };
  setTimeout(slice, 50);
}

function defaultColumns() {
  return [...app.scan.attributes]
    .filter(([key]) => !DULL.has(key))
    .sort((a, b) => b[1].count - a[1].count)
    .slice(0, 2)
    .map(([key]) => key);
}

function defaultStatsArray(coords) {
  // Data, not axes: neither declared coordinates nor a profile's pressure.
  const arrays = [...app.scan.arrays].filter(([name, a]) => NUMERIC.test(a.dtype) && !coords.has(name) && !VERTICAL.test(name));
  arrays.sort((a, b) => b[1].count - a[1].count);
  return arrays[0]?.[0] ?? [...app.scan.arrays].find(([, a]) => NUMERIC.test(a.dtype))?.[0] ?? null;
}

/** The column checkboxes and the statistics array menu. */
function fillChoosers(columns, statsArray) {
  const keys = [...app.scan.attributes].sort((a, b) => b[1].count - a[1].count);
  $("#columns .choices").innerHTML = keys
    .map(([key, a]) => `<label><input type="checkbox" value="${esc(key)}"${columns.includes(key) ? " checked" : ""}> ${esc(key)} <span class="muted">${esc(a.dtype)} · ${a.count.toLocaleString("en")}</span></label>`)
    .join("");
  const arrays = [...app.scan.arrays].filter(([, a]) => NUMERIC.test(a.dtype) || a.dtype === "timestamp_ns");
  $("#stats-array").innerHTML =
    `<option value="">(no statistics)</option>` +
    arrays.map(([name, a]) => `<option value="${esc(name)}"${name === statsArray ? " selected" : ""}>${esc(name)} (${esc(a.dtype)})</option>`).join("");
}

$("#columns .choices").addEventListener("change", () => {
  const keys = [...document.querySelectorAll("#columns .choices input:checked")].map((i) => i.value);
  catalogue.setAttrColumns(keys);
});
$("#stats-array").addEventListener("change", (event) => {
  const array = event.target.value || null;
  catalogue.setStatsArray(array, app.scan.arrays.get(array)?.dtype);
});
$("#name-filter").addEventListener("input", (event) => catalogue.setFilters({ name: event.target.value }));
$("#attr-filter").addEventListener("input", (event) => catalogue.setFilters({ attrs: event.target.value }));

// ---- navigation -----------------------------------------------------------

async function selectDataset(name, { push = false, array, idx, win, axes } = {}) {
  if (!app.atlas) return;
  app.navAbort?.abort();
  const abort = new AbortController();
  app.navAbort = abort;
  catalogue.select(name);
  setParams({ ds: name, array: array ?? null, idx: idx ?? null, win: win ?? null, axes: axes ?? null }, push);
  try {
    await datasetView.show(app.atlas.dataset(name), { array, idx, win, axes, signal: abort.signal });
  } catch (error) {
    if (!abort.signal.aborted && error?.code !== "Aborted") report(error);
  }
}

function showTab(tab, push = true) {
  app.tab = tab;
  for (const button of document.querySelectorAll(".tabs button")) button.classList.toggle("active", button.dataset.tab === tab);
  $("#dataset-view").hidden = tab !== "dataset";
  $("#across-view").hidden = tab !== "across";
  setParams({ tab: tab === "across" ? "across" : null }, push);
  if (tab === "across" && app.atlas) {
    const p = params();
    acrossView
      .show(app.atlas, { names: app.names, arrays: app.scan.arrays, attributes: app.scan.attributes }, { mode: p.get("mode"), variable: p.get("variable"), x: p.get("x"), point: numbers(p.get("point")), map: p.get("map"), fallback: catalogue.statsArray })
      .catch(report);
  } else {
    setParams({ variable: null, x: null, mode: null, point: null, map: null });
  }
}

for (const button of document.querySelectorAll(".tabs button")) button.addEventListener("click", () => showTab(button.dataset.tab));

window.addEventListener("popstate", () => {
  const p = params();
  const url = p.get("url");
  if (url && url !== $("#url").value) return open({ url });
  if (app.atlas && p.get("ds") && app.atlas.hasDataset(p.get("ds"))) {
    selectDataset(p.get("ds"), { array: p.get("array"), idx: numbers(p.get("idx")), win: numbers(p.get("win")), axes: numbers(p.get("axes")) });
  }
});

// ---- status, progress, problems ------------------------------------------

let statusFrame = 0;

/** The status line and the progress bar, redrawn at most once a frame. */
function status() {
  if (!statusFrame) statusFrame = requestAnimationFrame(drawStatus);
}

function drawStatus() {
  statusFrame = 0;
  const m = app.meter;
  const a = app.atlas;
  const parts = [`<b>${esc(app.label || "nothing open")}</b>`];
  if (a) {
    parts.push(`${a.datasetCount.toLocaleString("en")} datasets`);
    parts.push(`${esc(a.codec)} · ${bytes(a.containerBytes)}`);
    parts.push(`written ${esc(isoTime(BigInt(a.createdUnixMs) * 1_000_000n).slice(0, 10))}`);
  }
  if (app.opened) {
    const n = app.opened.requests;
    parts.push(`<span id="open-cost">opened in ${millis(app.opened.ms)} with ${n} request${n === 1 ? "" : "s"}, ${bytes(app.opened.bytes)}</span>`);
  }
  if (m.requests) parts.push(`<span id="total-cost">in all ${m.requests} requests, ${bytes(m.bytes)}</span>`);
  $("#status").innerHTML = parts.join(" · ");

  const bar = $("#progress");
  const busy = m.inFlight > 0;
  const { expected, arrived } = m.batch;
  bar.classList.toggle("busy", busy);
  bar.classList.toggle("determinate", busy && expected > 0);
  bar.style.setProperty("--done", String(expected > 0 ? Math.min(1, arrived / expected) : 0));
  $("#progress-label").textContent = busy
    ? `${readLabel || "loading"}: ${bytes(arrived)}${expected ? ` of ${bytes(expected)}` : ""} · ${m.inFlight} request${m.inFlight === 1 ? "" : "s"} in flight`
    : "";
}

let readLabel = "";

/** A read's own progress (the package's onProgress) names what is loading. */
function progress(p) {
  readLabel = p ? p.label : "";
  status();
}

function report(error) {
  if (error?.code === "Aborted") return;
  const problem = Problem.from(error);
  const box = $("#message");
  box.innerHTML = `<b>${esc(problem.title)}</b> <span class="code">${esc(problem.code)}</span><p>${esc(problem.message)}</p><button type="button" aria-label="dismiss">×</button>`;
  box.hidden = false;
  box.dataset.code = problem.code;
  box.querySelector("button").addEventListener("click", hideProblem);
  console.warn(problem.title, problem.message);
}

function hideProblem() {
  $("#message").hidden = true;
}

function landing() {
  return $("#landing-template").innerHTML;
}

// ---- start ----------------------------------------------------------------

const start = params().get("url");
if (start) open({ url: start });
else datasetView.clear(landing());
status();
