/**
 * Line charts through uPlot (small, fast on canvas, zoom and cursor for
 * free): a 1-D array against its coordinate, and one statistic per dataset
 * across the collection.
 */
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { isoTime } from "./format.js";

const utc = (seconds) => uPlot.tzDate(new Date(seconds * 1e3), "Etc/UTC");
const INK = "#1f2937";
const GRID = "#e5e7eb";

function axis(label, time = false) {
  const a = { label, stroke: INK, grid: { stroke: GRID, width: 1 }, ticks: { stroke: GRID, width: 1 }, font: "11px system-ui, sans-serif", labelFont: "12px system-ui, sans-serif" };
  if (time) a.values = timeTicks;
  return a;
}

/** ISO-style tick labels in UTC: dates for day steps and up, else times with the date where it changes. */
function timeTicks(_, splits, _axis, _space, step) {
  let day = "";
  return splits.map((s) => {
    const iso = new Date(s * 1000).toISOString();
    if (step >= 28 * 86400) return iso.slice(0, 7);
    if (step >= 86400) return iso.slice(0, 10);
    const date = iso.slice(0, 10);
    const time = iso.slice(11, step >= 60 ? 16 : 19);
    const label = date !== day ? `${time}\n${date}` : time;
    day = date;
    return label;
  });
}

/** Sorts (x, ys…) rows by x ascending, as uPlot needs; NaN becomes a gap. */
function sortedColumns(x, ...ys) {
  const order = Array.from(x.keys()).filter((k) => Number.isFinite(x[k]));
  order.sort((a, b) => x[a] - x[b]);
  const gap = (v) => (Number.isFinite(v) ? v : null);
  return { order, data: [order.map((k) => x[k]), ...ys.map((y) => order.map((k) => gap(y[k])))] };
}

/** A chart that follows its host's width. */
class Chart {
  constructor(host, opts, data) {
    host.replaceChildren();
    this.host = host;
    this.plot = new uPlot({ ...opts, width: Math.max(280, host.clientWidth), height: opts.height ?? 340 }, data, host);
    host.uplot = this.plot; // for readers such as the tests: valToPos and friends
    this.resize = new ResizeObserver(() => this.plot.setSize({ width: Math.max(280, host.clientWidth), height: this.plot.height }));
    this.resize.observe(host);
  }

  destroy() {
    this.resize.disconnect();
    this.plot.destroy();
  }
}

/**
 * `y` against `x` (the coordinate, or indices). `time` marks x as seconds
 * since the epoch. `vertical` draws x down the page, as oceanographers draw
 * a profile: pressure or depth growing downwards, the value along the top.
 * The points drawn stay on `host.drawn` ({x, y}, sorted by x) for readers
 * such as the tests.
 */
export function lineChart(host, { x, y, xLabel, yLabel, time = false, vertical = false, color = "#2563eb" }) {
  const { data } = sortedColumns(x, y);
  const chart = new Chart(
    host,
    {
      height: vertical ? 460 : 340,
      // x on the vertical (ori 1); dir -1 puts its small values at the top.
      scales: { x: vertical ? { time: false, ori: 1, dir: -1 } : { time }, y: vertical ? { ori: 0, dir: 1 } : {} },
      tzDate: utc,
      legend: { show: true },
      cursor: { drag: vertical ? { x: false, y: false } : { x: true, y: false } },
      series: [
        { label: xLabel, value: time ? (_, v) => (v == null ? "" : isoTime(BigInt(Math.round(v * 1000)) * 1_000_000n)) : undefined },
        { label: yLabel, stroke: color, width: 1.5, spanGaps: false, points: { show: data[0].length <= 60 } },
      ],
      axes: vertical ? [{ ...axis(xLabel), side: 3 }, { ...axis(yLabel), side: 0 }] : [axis(xLabel, time), axis(yLabel)],
    },
    data,
  );
  host.drawn = { x: data[0], y: data[1] };
  host.dataset.points = String(data[1].filter((v) => v !== null).length);
  host.dataset.orientation = vertical ? "vertical" : "horizontal";
  return chart;
}

/**
 * Per-dataset min and max of one array against a per-dataset x (time or
 * any number). A regular series (one dataset a day) is drawn as two lines
 * with the band between them; scattered datasets (profiles here and there)
 * as one min-to-max bar each. `onPick(k)` gets the input index of a
 * clicked dataset.
 */
export function acrossChart(host, { x, min, max, xLabel, yLabel, time, onPick }) {
  const { order, data } = sortedColumns(x, min, max);
  const regular = isRegular(data[0]);
  const dense = data[0].length > 120;
  const line = (stroke) => (regular ? { stroke, width: 1.25, points: { show: !dense, size: 4 } } : { stroke, width: 0, paths: () => null, points: { show: true, size: 4, fill: stroke } });
  const chart = new Chart(
    host,
    {
      height: 380,
      scales: { x: { time } },
      tzDate: utc,
      cursor: { drag: { x: true, y: false }, points: { size: 7 } },
      series: [
        { label: xLabel, value: time ? (_, v) => (v == null ? "" : isoTime(BigInt(Math.round(v * 1000)) * 1_000_000n)) : undefined },
        { label: `min ${yLabel}`, ...line("#2563eb") },
        { label: `max ${yLabel}`, ...line("#dc2626") },
      ],
      bands: regular ? [{ series: [2, 1], fill: "rgba(148, 163, 184, 0.25)" }] : [],
      hooks: regular ? {} : { draw: [(u) => rangeBars(u)] },
      axes: [axis(xLabel, time), axis(yLabel)],
    },
    data,
  );
  chart.regular = regular;
  host.dataset.style = regular ? "band" : "bars";
  chart.plot.over.addEventListener("click", () => {
    const idx = chart.plot.cursor.idx;
    if (idx != null && onPick) onPick(order[idx]);
  });
  return chart;
}

/** Steps between sorted x values that vary by no more than 2:1. */
function isRegular(xs) {
  if (xs.length < 3) return true;
  const steps = [];
  for (let k = 1; k < xs.length; k++) steps.push(xs[k] - xs[k - 1]);
  steps.sort((a, b) => a - b);
  const median = steps[steps.length >> 1];
  return median > 0 && steps[steps.length - 1] <= 2 * median && steps[0] >= median / 2;
}

/** A grey bar from each dataset's min to its max. */
function rangeBars(u) {
  const [xs, lo, hi] = u.data;
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = "rgba(100, 116, 139, 0.55)";
  ctx.lineWidth = Math.max(1, devicePixelRatio);
  ctx.beginPath();
  for (let k = 0; k < xs.length; k++) {
    if (lo[k] == null || hi[k] == null) continue;
    const px = Math.round(u.valToPos(xs[k], "x", true));
    ctx.moveTo(px, u.valToPos(lo[k], "y", true));
    ctx.lineTo(px, u.valToPos(hi[k], "y", true));
  }
  ctx.stroke();
  ctx.restore();
}

/**
 * One value per dataset (read with `readAcross`) against a per-dataset x.
 * A regular series is joined by a line; scattered datasets are points.
 * `onPick(k)` gets the input index of a clicked dataset. The points drawn
 * stay on `host.drawn` ({x, y, order}: sorted by x, order maps back to the
 * input).
 */
export function valuesChart(host, { x, y, xLabel, yLabel, time, onPick }) {
  const { order, data } = sortedColumns(x, y);
  const regular = isRegular(data[0]);
  const dense = data[0].length > 120;
  const chart = new Chart(
    host,
    {
      height: 380,
      scales: { x: { time } },
      tzDate: utc,
      cursor: { drag: { x: true, y: false }, points: { size: 7 } },
      series: [
        { label: xLabel, value: time ? (_, v) => (v == null ? "" : isoTime(BigInt(Math.round(v * 1000)) * 1_000_000n)) : undefined },
        regular
          ? { label: yLabel, stroke: "#2563eb", width: 1.25, points: { show: !dense, size: 4 } }
          : { label: yLabel, stroke: "#2563eb", width: 0, paths: () => null, points: { show: true, size: 5, fill: "#2563eb" } },
      ],
      axes: [axis(xLabel, time), axis(yLabel)],
    },
    data,
  );
  chart.regular = regular;
  host.dataset.style = regular ? "line" : "points";
  host.drawn = { x: data[0], y: data[1], order };
  chart.plot.over.addEventListener("click", () => {
    const idx = chart.plot.cursor.idx;
    if (idx != null && onPick) onPick(order[idx]);
  });
  return chart;
}
