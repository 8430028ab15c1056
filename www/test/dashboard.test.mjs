// The dashboard end to end in headless Chromium (Debian's, driven by
// playwright-core): the built www/dist/ and the sample collections served by
// the package's Range server, a second origin for CORS, and hostile servers.
// Assertions read the DOM and the pixels of the canvases; screenshots go to
// www/test/artifacts/.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Atlas } from "atlas-wasm";
import { chromium } from "playwright-core";
import { startServer } from "../../js/test/server.mjs";
import { SAMPLES, WWW, serveDashboard } from "../scripts/serve.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
/** The Delta config of the Atria corpus, imported by www/scripts/test.sh. */
const ATRIA = process.env.ATLAS_WWW_ATRIA;
const ATRIA_CORPUS = process.env.ATLAS_ATRIA_CORPUS;
/** The 100,000-dataset collection js/scripts/test.sh writes (tests/reader_scale.rs). */
const SCALE = join(process.env.ATLAS_FIXTURES ?? join(dirname(fileURLToPath(import.meta.url)), "..", "..", "target", "atlas-fixtures"), "scale");
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
const WAIT = { timeout: 20_000 };
/** Screenshots the docs show (docs/dashboard.md): one panel each, small PNGs. */
// The docs' pictures are rewritten only when asked (ATLAS_DOC_SCREENSHOTS=1):
// a test run must not change committed files.
const DOC_IMAGES = process.env.ATLAS_DOC_SCREENSHOTS === "1" ? join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "images") : ARTIFACTS;

/** The sample collections opened in Node by the same package: what the page must draw. */
const samples = new Map();
async function sample(name) {
  if (!samples.has(name)) {
    const file = (f) => Atlas.fromBytes(readFileSync(join(SAMPLES, name, f)));
    const mask = existsSync(join(SAMPLES, name, "deleted.mask")) ? file("deleted.mask") : undefined;
    samples.set(name, await Atlas.open({ data: file("data.atlas"), mask }));
  }
  return samples.get(name);
}

/** Numbers as the dashboard draws them: fill and NaN become NaN. */
function numbers(data, fill) {
  return Array.from(data, (v) => (Number(v) === fill || Number.isNaN(Number(v)) ? NaN : Number(v)));
}

let site, other, noCors, browser, scratch;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // The second origin serves the ocean sample and a file that is no collection.
  scratch = mkdtempSync(join(tmpdir(), "atlas-www-"));
  symlinkSync(join(SAMPLES, "ocean"), join(scratch, "ocean"));
  // An Atria cache as `atlas import-atria` wrote it (www/scripts/test.sh).
  if (ATRIA) symlinkSync(ATRIA, join(scratch, "atria"));
  if (existsSync(SCALE)) symlinkSync(SCALE, join(scratch, "scale"));
  mkdirSync(join(scratch, "junk"));
  writeFileSync(join(scratch, "junk", "data.atlas"), Buffer.alloc(200_000, "not an atlas collection "));
  site = await serveDashboard();
  other = await startServer({ root: scratch });
  // A server that answers but sends no CORS headers at all.
  noCors = createServer((req, res) => res.writeHead(200, { "Content-Type": "application/octet-stream" }).end(Buffer.alloc(64)));
  await new Promise((done) => noCors.listen(0, "127.0.0.1", done));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  await site?.close();
  await other?.close();
  await new Promise((done) => (noCors ? noCors.close(done) : done()));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  for (const atlas of samples.values()) atlas.close();
});

/** A fresh page; page errors fail the test that opened it. */
async function newPage(t, path) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = [];
  const elsewhere = [];
  page.on("pageerror", (error) => errors.push(error));
  // Everything comes from the served files: no CDN, no fonts, no telemetry.
  page.on("request", (request) => {
    const { protocol, hostname } = new URL(request.url());
    if (!["data:", "blob:"].includes(protocol) && hostname !== "127.0.0.1") elsewhere.push(request.url());
  });
  t.after(async () => {
    await page.close();
    assert.deepEqual(errors, [], "no uncaught errors in the page");
    assert.deepEqual(elsewhere, [], "no requests beyond this machine's servers");
  });
  if (path !== undefined) await page.goto(`${site.url}/${path}`);
  return page;
}

const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });

/** A screenshot of the right-hand panel for the docs. */
async function docShot(page, name, selector = ".plot-panel") {
  mkdirSync(DOC_IMAGES, { recursive: true });
  await page.locator(selector).first().screenshot({ path: join(DOC_IMAGES, `dashboard-${name}.png`), animations: "disabled" });
}

async function rowCount(page, shown) {
  await page.waitForSelector(`.row-count[data-shown="${shown}"]`, WAIT);
  return page.textContent(".row-count");
}

/** RGBA of the heatmap cell at (lat, lon) of the sample's 2-degree grid. */
function cell(page, lat, lon) {
  return page.evaluate(
    ([lat, lon]) => {
      const canvas = document.querySelector("canvas.map");
      const box = JSON.parse(canvas.dataset.box);
      const i = Math.round((lat + 89) / 2);
      const j = Math.round((lon + 179) / 2);
      const row = box.flipY ? box.ny - 1 - i : i;
      const dpr = canvas.width / canvas.clientWidth;
      const x = (box.left + ((j + 0.5) / box.nx) * box.width) * dpr;
      const y = (box.top + ((row + 0.5) / box.ny) * box.height) * dpr;
      return Array.from(canvas.getContext("2d").getImageData(Math.floor(x), Math.floor(y), 1, 1).data);
    },
    [lat, lon],
  );
}

/** A digest of every pixel of the heatmap, to tell two drawings apart. */
function mapDigest(page) {
  return page.evaluate(() => {
    const canvas = document.querySelector("canvas.map");
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let h = 2166136261;
    for (let k = 0; k < data.length; k += 7) h = Math.imul(h ^ data[k], 16777619);
    return h >>> 0;
  });
}

describe("the dashboard", () => {
  it("opens the sample by ?url= and lists every live dataset in a virtual table", async (t) => {
    const page = await newPage(t, "?url=collections/ocean");
    assert.equal(await rowCount(page, 663), "663 of 663 datasets · 3 hidden by deleted.mask");
    // Opening cost one suffix range for the tail and one GET for the mask.
    assert.match(await page.textContent("#open-cost"), /^opened in \d+ ms with 2 requests, 64 KiB$/);
    const rows = await page.$$eval(".rows .row:not([hidden])", (els) => els.map((e) => e.dataset.name));
    assert.ok(rows.length > 10 && rows.length < 80, `only the rows in view exist (${rows.length})`);
    assert.equal(rows[0], "sst_2024-01-01");
    assert.deepEqual(await page.$$eval(".thead .cell", (els) => els.map((e) => e.textContent)), ["dataset", "date", "month", "min", "max", "nulls", "count"]);

    await page.fill("#name-filter", "argo_5906100");
    assert.equal(await rowCount(page, 14), "14 of 663 datasets · 3 hidden by deleted.mask"); // 15 cycles, one hidden
    await page.fill("#name-filter", "");
    // The filter against the attributes as the package reads them.
    const apexSummer = await page.evaluate(async () => {
      const atlas = window.dashboard.atlas;
      const [types, months] = await Promise.all([atlas.attributesByDataset(null, "float_type"), atlas.attributesByDataset(null, "month")]);
      return Object.keys(types).filter((name) => types[name] === "APEX" && months[name] >= 6).length;
    });
    assert.ok(apexSummer > 5);
    await page.fill("#attr-filter", "float_type=APEX month>=6");
    await rowCount(page, apexSummer);
    const months = await page.$$eval(".rows .row:not([hidden]) .cell:nth-child(3)", (els) => els.map((e) => Number(e.textContent)));
    assert.ok(months.every((m) => m >= 6), `months ${months}`);
    await page.fill("#attr-filter", "");
    await rowCount(page, 663);

    // Sort by the per-dataset maximum of sst, largest first.
    await page.click('.thead [data-column="stat:max"]');
    await page.click('.thead [data-column="stat:max"]');
    const maxima = await page.$$eval(".rows .row:not([hidden]) .cell:nth-child(5)", (els) => els.slice(0, 5).map((e) => Number(e.textContent)));
    assert.deepEqual([...maxima].sort((a, b) => b - a), maxima);
    assert.ok(maxima[0] > 30, `warmest day first: ${maxima}`);
    await shot(page, "catalogue-sorted");
  });

  it("scrolls 12,000 rows keeping only a window of them in the DOM", async (t) => {
    const page = await newPage(t, "?url=collections/stations");
    assert.equal(await rowCount(page, 12000), "12,000 of 12,000 datasets");
    await page.waitForFunction(() => document.querySelector(".rows .row .cell:nth-child(5)")?.textContent.match(/\d/), null, WAIT);
    const result = await page.evaluate(async () => {
      const viewport = document.querySelector(".viewport");
      const started = performance.now();
      for (let k = 0; k < 60; k++) {
        viewport.scrollTop += 5_600; // 200 rows a step
        await new Promise((r) => requestAnimationFrame(r));
      }
      viewport.scrollTop = viewport.scrollHeight;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const rows = [...document.querySelectorAll(".rows .row:not([hidden])")];
      return { ms: performance.now() - started, rows: rows.length, last: rows.at(-1).dataset.name, nodes: document.querySelectorAll(".rows .row").length };
    });
    assert.equal(result.last, "station_11999");
    assert.ok(result.nodes < 80, `row elements are reused (${result.nodes})`);
    assert.ok(result.ms < 10_000, `60 scroll steps took ${result.ms} ms`);
    await shot(page, "catalogue-12000");
  });

  it("draws a 2-D slice as a heatmap with a legend, land transparent", async (t) => {
    const page = await newPage(t, "?url=collections/ocean&ds=sst_2024-03-01");
    await page.waitForSelector('#plot[data-ready="sst"]', WAIT);
    const tropics = await cell(page, 1, -151); // central Pacific: warm
    const polar = await cell(page, -65, -151); // Southern Ocean: cold
    const africa = await cell(page, 1, 21); // land: NaN
    assert.equal(africa[3], 0, `land is transparent: ${africa}`);
    assert.equal(tropics[3], 255);
    assert.ok(tropics[0] > 150 && tropics[1] > 150 && tropics[2] < 120, `warm end of viridis: ${tropics}`);
    assert.ok(polar[2] > polar[1] && polar[0] < 120, `cold end of viridis: ${polar}`);
    assert.equal(await page.textContent(".legend .units"), "degC");
    assert.match(await page.textContent(".plot-note"), /^window \[0, 0, 0\] \+ \[1, 90, 180\] of \[1, 90, 180\] · 16,200 cells, 5,520 missing/);
    // The slider of the length-1 time axis names its date.
    assert.equal(await page.textContent('.slider[data-axis="0"] output'), "2024-03-01");

    // Hovering names the cell and its value.
    const box = JSON.parse(await page.getAttribute("canvas.map", "data-box"));
    const at = await page.locator("canvas.map").boundingBox();
    await page.mouse.move(at.x + box.left + box.width * 0.1, at.y + box.top + box.height * 0.5);
    assert.match(await page.textContent(".readout"), /^lat -?\d+, lon -\d+: [\d.-]+ degC$/);
    await shot(page, "heatmap");

    // Dragging a box zooms: only that window is read.
    await page.mouse.move(at.x + box.left + box.width * 0.5, at.y + box.top + box.height * 0.2);
    await page.mouse.down();
    await page.mouse.move(at.x + box.left + box.width * 0.75, at.y + box.top + box.height * 0.45, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction(() => /^window \[0, \d+, \d+\] \+ \[1, (2[0-9]|1\d), (4[0-9]|3\d)\]/.test(document.querySelector(".plot-note").textContent), null, WAIT);
    assert.match(page.url(), /&win=\d+,\d+,\d+,\d+/);
    await shot(page, "heatmap-zoomed");
  });

  it("slides through a 4-D array, reading one chunk per slice", async (t) => {
    const page = await newPage(t, "?url=collections/ocean&ds=ocean_model_2024_monthly");
    await page.waitForSelector('#plot[data-ready="thetao"]', WAIT);
    assert.equal(await page.textContent('.slider[data-axis="0"] output'), "2024-01-16");
    assert.equal(await page.textContent('.slider[data-axis="1"] output'), "5 m");
    const surface = await mapDigest(page);
    const missingAtSurface = Number((await page.textContent(".plot-note")).match(/([\d,]+) missing/)[1].replace(/,/g, ""));
    const before = await page.evaluate(() => window.dashboard.meter.bytes);

    await page.locator('.slider[data-axis="1"] input').fill("9");
    await page.waitForFunction(() => document.querySelector(".plot-note").textContent.startsWith("window [0, 9, 0, 0] + [1, 1, 90, 180] of [12, 10, 90, 180]"), null, WAIT);
    await page.waitForSelector('#plot[data-ready="thetao"]', WAIT);
    assert.equal(await page.textContent('.slider[data-axis="1"] output'), "1500 m");
    assert.notEqual(await mapDigest(page), surface, "the deep slice looks different");
    const missingDeep = Number((await page.textContent(".plot-note")).match(/([\d,]+) missing/)[1].replace(/,/g, ""));
    assert.ok(missingDeep > missingAtSurface, "shelves fall dry at 1500 m");
    const read = (await page.evaluate(() => window.dashboard.meter.bytes)) - before;
    assert.ok(read > 0 && read < 100_000, `one slice costs one compressed chunk, not the 7.8 MB array (${read} bytes)`);
    assert.match(page.url(), /idx=0,9,0,0/);
    const deep = await cell(page, -1, -151);
    assert.equal(deep[3], 255);

    await page.locator('.slider[data-axis="0"] input').fill("6");
    await page.waitForFunction(() => document.querySelector(".plot-note").textContent.startsWith("window [6, 9, 0, 0]"), null, WAIT);
    assert.equal(await page.textContent('.slider[data-axis="0"] output'), "2024-07-14");
    await shot(page, "heatmap-4d");
  });

  it("plots a 1-D profile against its coordinate and reads the conventions", async (t) => {
    const page = await newPage(t, "?url=collections/ocean&ds=argo_5906100_001");
    // pres is the declared coordinate and grows downwards: a profile, drawn vertically.
    await page.waitForSelector('#plot[data-ready="temp"][data-kind="profile"]', WAIT);
    const legend = await page.textContent("#plot .u-legend");
    assert.match(legend, /pres \(dbar\)/);
    assert.match(legend, /temp \(degC\)/);
    // The line is drawn: many pixels of its colour on uPlot's canvas.
    const blue = await page.evaluate(() => {
      const canvas = document.querySelector("#plot canvas");
      const d = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k + 3] > 200 && d[k + 2] > 180 && d[k] < 90 && d[k + 1] < 140) n++;
      return n;
    });
    assert.ok(blue > 300, `line pixels: ${blue}`);
    assert.match(await page.textContent(".plot-note"), /^311 values, 3 missing · against depth pres/);

    // xarray conventions: coordinates listed, json: values decoded, timestamps as ISO dates.
    assert.equal(await page.textContent(".ds-head code:nth-of-type(1)"), "pres");
    const attrs = await page.$$eval("#dataset-view > section > table.attrs tr", (rows) => Object.fromEntries(rows.map((r) => [r.querySelector("th").textContent, r.querySelector("td").textContent])));
    assert.equal(attrs.sensors, '[ "CTD_PRES", "CTD_TEMP", "CTD_CNDC" ] json');
    assert.equal(attrs._pyatlas_coords, "pres juld latitude longitude coordinates");
    assert.equal(attrs.cycle_number, "1");
    const juld = await page.$$eval('tr[data-array="juld"] td', (tds) => tds.map((td) => td.textContent.trim()));
    assert.equal(juld[1], "timestamp_ns");
    assert.equal(juld[2], "scalar");
    assert.match(juld[5], /^2024-01-11T\d\d:\d\d:\d\dZ$/);
    await shot(page, "line-chart");

    // A scalar string array shows its value; a string array its items.
    await page.click('tr[data-array="platform_number"]');
    await page.waitForSelector('#plot[data-ready="platform_number"]', WAIT);
    assert.equal(await page.textContent("#plot .scalar"), "5906100");
    await page.click('tr[data-array="juld"]');
    await page.waitForSelector('#plot[data-ready="juld"]', WAIT);
    assert.match(await page.textContent("#plot .scalar"), /^2024-01-11T/);
  });

  it("shows one array across all datasets against time", async (t) => {
    const page = await newPage(t, "?url=collections/ocean&tab=across");
    await page.waitForSelector('#across-plot[data-ready="sst"]', WAIT);
    assert.equal(await page.getAttribute("#across-plot", "data-points"), "365");
    assert.equal(await page.getAttribute("#across-plot", "data-style"), "band");
    assert.equal(await page.inputValue("#across-view .x"), "time:time");
    const red = await page.evaluate(() => {
      const canvas = document.querySelector("#across-plot canvas");
      const d = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k + 3] > 200 && d[k] > 180 && d[k + 1] < 90 && d[k + 2] < 90) n++;
      return n;
    });
    assert.ok(red > 300, `the max line is drawn (${red} red pixels)`);
    await page.selectOption("#across-view .variable", "temp");
    await page.waitForSelector('#across-plot[data-ready="temp"]', WAIT);
    assert.equal(await page.getAttribute("#across-plot", "data-points"), "297");
    assert.equal(await page.inputValue("#across-view .x"), "time:juld", "the profiles' own time");
    assert.equal(await page.getAttribute("#across-plot", "data-style"), "bars", "scattered profiles get one bar each");
    await shot(page, "across-datasets");
    await docShot(page, "across-stats", "#across-view");
    // Switching to values keeps the array and its time axis.
    await page.click('.across-modes [data-mode="values"]');
    await page.waitForSelector('#across-plot[data-mode="values"][data-ready="temp"]', WAIT);
    assert.equal(await page.inputValue("#across-view .x"), "time:juld");
    const shallowest = await (await sample("ocean")).readAcross("temp", { start: [0], shape: [1] });
    assert.equal(shallowest.datasets.length, 297);
    const finite = Array.from(shallowest.data).filter(Number.isFinite).length;
    assert.equal(await page.getAttribute("#across-plot", "data-points"), String(finite), "temp[0], the shallowest level of each live profile");
  });

  it("opens a dropped data.atlas and deleted.mask from the page's memory", async (t) => {
    const page = await newPage(t, "");
    await page.waitForSelector(".empty a.sample");
    await page.evaluate(async () => {
      const file = async (path, name) => new File([await (await fetch(path)).blob()], name);
      const transfer = new DataTransfer();
      transfer.items.add(await file("collections/ocean/data.atlas", "data.atlas"));
      transfer.items.add(await file("collections/ocean/deleted.mask", "deleted.mask"));
      window.dispatchEvent(new DragEvent("dragenter", { dataTransfer: transfer }));
      window.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, cancelable: true }));
    });
    assert.equal(await rowCount(page, 663), "663 of 663 datasets · 3 hidden by deleted.mask");
    await page.waitForSelector('#plot[data-ready="sst"]', WAIT);
    assert.match(await page.textContent("#status b"), /^data\.atlas \+ deleted\.mask \(local file\)$/);
    assert.equal((await cell(page, 1, 21))[3], 0);
    assert.ok(!page.url().includes("url="), "a local file has no shareable URL");
    await shot(page, "dropped-file");
  });

  it("reads a collection served from another origin (CORS)", async (t) => {
    other.reset();
    const page = await newPage(t, `?url=${other.url}/ocean&ds=sst_2024-06-01`);
    assert.equal(await rowCount(page, 663), "663 of 663 datasets · 3 hidden by deleted.mask");
    await page.waitForSelector('#plot[data-ready="sst"]', WAIT);
    assert.equal((await cell(page, 1, -151))[3], 255);
    const log = other.log;
    assert.ok(log.some((e) => e.method === "OPTIONS"), "the suffix range was preflighted");
    assert.ok(log.filter((e) => e.status === 206).length >= 3, "ranged reads answered 206");
    assert.ok(!log.some((e) => e.method === "GET" && e.status === 200), "no whole-file answers");
  });

  it("explains what is wrong with a URL that is not a readable collection", async (t) => {
    const cases = [
      [`?url=collections/nothing-here`, "NotFound", /^No collection at this URL/],
      [`?url=${other.url}/junk`, "NotAnAtlasCollection", /^Not an ATLAS collection/],
      [`?url=~ignore-range/collections/ocean`, "RangeNotSupported", /^The server ignores Range requests/],
      [`?url=http://127.0.0.1:${noCors.address().port}/ocean`, "Network", /^Blocked by CORS/],
    ];
    const page = await newPage(t);
    for (const [path, code, title] of cases) {
      await page.goto(`${site.url}/${path}`);
      await page.waitForSelector("#message:not([hidden])", WAIT);
      assert.equal(await page.getAttribute("#message", "data-code"), code, path);
      assert.match(await page.textContent("#message b"), title, path);
    }
    await shot(page, "error-cors");
  });

  it("aborts the reads of a dataset it navigates away from", async (t) => {
    // Every answer of this server waits 300 ms, so a read is still in flight.
    const page = await newPage(t, "?url=~slow/collections/ocean&ds=sst_2024-02-01");
    await page.waitForSelector('#plot[data-ready="sst"]', { timeout: 60_000 });
    await page.click('.row[data-name="sst_2024-02-02"]');
    // Its heatmap exists and its read is on the way (300 ms at least).
    await page.waitForFunction(() => document.querySelector(".ds-head h2")?.textContent === "sst_2024-02-02" && document.querySelector('#plot[data-kind="heatmap"]:not([data-ready])'), null, { timeout: 60_000 });
    // Progress shows while the bytes are on their way.
    await page.waitForFunction(() => document.querySelector("#progress").classList.contains("busy") && /^reading sst: .* in flight$/.test(document.querySelector("#progress-label").textContent), null, WAIT);
    await page.click('.row[data-name="sst_2024-02-03"]');
    await page.waitForFunction(() => document.querySelector(".ds-head h2")?.textContent === "sst_2024-02-03" && document.querySelector('#plot[data-ready="sst"]'), null, { timeout: 60_000 });
    assert.ok((await page.evaluate(() => window.dashboard.aborted)) >= 1, "the read for 2024-02-02 was aborted");
    assert.equal(await page.isHidden("#message"), true, "an abort is no error");
    assert.match(page.url(), /ds=sst_2024-02-03/);
    // Back goes to the dataset before.
    await page.goBack();
    await page.waitForFunction(() => document.querySelector(".ds-head h2")?.textContent === "sst_2024-02-02", null, { timeout: 60_000 });
  });

  it("draws an Argo profile [1, 513] as a line against PRES, pressure downwards", async (t) => {
    const page = await newPage(t, "?url=collections/argo&ds=R6903000_001");
    await page.waitForSelector('#plot[data-ready="TEMP"][data-kind="profile"]', WAIT);
    assert.equal(await page.textContent(".plot-title"), "TEMP float32 [1, 513]");
    // What the file holds, read in Node: PRES has no coordinate role, but names the vertical.
    const ds = (await sample("argo")).dataset("R6903000_001");
    const pres = numbers((await ds.read("PRES")).data, 99_999);
    const temp = numbers((await ds.read("TEMP")).data, 99_999);
    const want = pres.map((p, k) => [p, temp[k]]).filter(([p]) => Number.isFinite(p));
    want.sort((a, b) => a[0] - b[0]);
    const drawn = await page.evaluate(() => {
      const plot = document.querySelector("#plot");
      const u = plot.uplot;
      // Screen position of the shallowest and deepest pressure: deeper is lower on the page.
      const xs = plot.drawn.x;
      return { x: Array.from(xs), y: Array.from(plot.drawn.y, (v) => (v === null ? NaN : v)), top: u.valToPos(xs[0], "x"), bottom: u.valToPos(xs[xs.length - 1], "x"), left: u.valToPos(10, "y"), right: u.valToPos(20, "y") };
    });
    assert.equal(drawn.x.length, want.length, "every sampled level is a point; the trailing 99999 fills are not");
    assert.ok(want.length > 500 && want.length <= 513);
    assert.deepEqual(drawn.x, want.map(([p]) => Math.fround(p)));
    assert.deepEqual(drawn.y, want.map(([, v]) => (Number.isFinite(v) ? Math.fround(v) : NaN)));
    assert.ok(drawn.y.some(Number.isNaN), "a 99999 TEMP is a gap, not a spike");
    assert.ok(drawn.bottom > drawn.top + 200, `pressure grows downwards (${drawn.top} -> ${drawn.bottom})`);
    assert.ok(drawn.right > drawn.left, "temperature grows to the right");
    assert.match(await page.textContent(".plot-note"), /^513 values along N_LEVELS of \[1, 513\], \d+ missing · against depth PRES/);
    const legend = await page.textContent("#plot .u-legend");
    assert.match(legend, /PRES \(decibar\)/);
    assert.match(legend, /TEMP \(degree_Celsius\)/);
    await shot(page, "argo-profile");
    await docShot(page, "profile");
  });

  it("shows a timestamp fill as NaT, never as 1677-09-21", async (t) => {
    // Every fifth Argo profile has no position fix: JULD_LOCATION holds i64::MIN.
    const page = await newPage(t, "?url=collections/argo&ds=R6903000_005&array=JULD_LOCATION");
    await page.waitForSelector('#plot[data-ready="JULD_LOCATION"]', WAIT);
    assert.deepEqual(await page.$$eval("#plot ol.values li", (items) => items.map((li) => li.textContent)), ["NaT"]);
    const row = await page.$$eval('tr[data-array="JULD_LOCATION"] td', (tds) => tds.map((td) => td.textContent.trim()));
    assert.equal(row[1], "timestamp_ns");
    assert.equal(row[4], "NaT", "the fill column");
    assert.ok(!(await page.textContent("#dataset-view")).includes("1677"), "no 1677 anywhere");
    await docShot(page, "nat");
    await docShot(page, "nat-schema", "table.schema");
    // A profile with a fix shows its time.
    await page.click('.row[data-name="R6903000_004"]');
    await page.waitForFunction(() => document.querySelector(".ds-head h2")?.textContent === "R6903000_004", null, WAIT);
    await page.click('tr[data-array="JULD_LOCATION"]');
    await page.waitForSelector('#plot[data-ready="JULD_LOCATION"]', WAIT);
    const fix = (await (await sample("argo")).dataset("R6903000_004").read("JULD_LOCATION")).data[0];
    assert.equal(await page.textContent("#plot ol.values li"), new Date(Number(fix / 1_000_000n)).toISOString().replace(".000Z", "Z"));
  });

  it("pans a 720 x 1440 grid beyond its first 1024 columns, reading one window at a time", async (t) => {
    const page = await newPage(t, "?url=collections/argo&ds=bathymetry_15min");
    await page.waitForSelector('#plot[data-ready="elevation"]', WAIT);
    assert.match(await page.textContent(".plot-note"), /^window \[0, 0\] \+ \[720, 1024\] of \[720, 1440\] · 737,280 cells/);
    const elevation = (await sample("argo")).dataset("bathymetry_15min");
    const drawnWindow = () => page.evaluate(() => ({ ...JSON.parse(document.querySelector("#plot").dataset.window), values: Array.from(document.querySelector("#plot").drawn.values) }));
    let drawn = await drawnWindow();
    let want = await elevation.read("elevation", { start: drawn.start, shape: drawn.count });
    assert.deepEqual(drawn.values, Array.from(want.data), "the first window's cells");
    assert.equal(await page.isDisabled('[data-pan="left"]'), true);

    const before = await page.evaluate(() => window.dashboard.meter.bytes);
    await page.click('[data-pan="right"]');
    await page.waitForFunction(() => document.querySelector(".plot-note").textContent.startsWith("window [0, 416] + [720, 1024]"), null, WAIT);
    await page.waitForSelector('#plot[data-ready="elevation"]', WAIT);
    drawn = await drawnWindow();
    assert.deepEqual(drawn.start, [0, 416]);
    want = await elevation.read("elevation", { start: [0, 416], shape: [720, 1024] });
    assert.deepEqual(drawn.values, Array.from(want.data), "the panned window's cells, columns 416 to 1439");
    assert.ok((await page.evaluate(() => window.dashboard.meter.bytes)) > before, "panning read more of the array");
    assert.equal(await page.isDisabled('[data-pan="right"]'), true, "the last column is on screen");
    assert.match(page.url(), /win=0,416,720,1024/);
    // The hover readout names a column past 1024 and its value.
    const box = JSON.parse(await page.getAttribute("canvas.map", "data-box"));
    const at = await page.locator("canvas.map").boundingBox();
    await page.mouse.move(at.x + box.left + box.width * 0.99, at.y + box.top + box.height * 0.5);
    const [, lat, lon, value] = (await page.textContent(".readout")).match(/^lat (-?[\d.]+), lon (-?[\d.]+): (-?\d+) m$/);
    const j = Math.round((Number(lon) + 179.875) / 0.25);
    const i = Math.round((Number(lat) + 89.875) / 0.25);
    assert.ok(j > 1024, `column ${j}`);
    assert.equal(Number(value), (await elevation.read("elevation", { start: [i, j], shape: [1, 1] })).data[0]);
    await shot(page, "bathymetry-panned");
    await docShot(page, "pan");
  });

  it("lets the user pick the two axes a 4-D array is drawn on", async (t) => {
    const page = await newPage(t, "?url=collections/ocean&ds=ocean_model_2024_monthly");
    await page.waitForSelector('#plot[data-ready="thetao"]', WAIT);
    assert.equal(await page.inputValue(".y-axis"), "2");
    assert.equal(await page.inputValue(".x-axis"), "3");
    // A depth section along a meridian: rows depth, then columns lat; lon gets a slider.
    await page.selectOption(".y-axis", "1");
    await page.waitForFunction(() => /^window \[0, 0, 0, 0\] \+ \[1, 10, 1, 180\]/.test(document.querySelector(".plot-note").textContent), null, WAIT);
    assert.equal(await page.inputValue(".x-axis"), "3", "the columns kept lon");
    await page.selectOption(".x-axis", "2");
    await page.waitForFunction(() => /^window \[0, 0, 0, 0\] \+ \[1, 10, 90, 1\]/.test(document.querySelector(".plot-note").textContent), null, WAIT);
    await page.waitForSelector('#plot[data-ready="thetao"]', WAIT);
    assert.deepEqual(await page.$$eval(".slider", (els) => els.map((e) => e.dataset.axis)), ["0", "3"]);
    await page.locator('.slider[data-axis="3"] input').fill("75");
    await page.waitForFunction(() => document.querySelector(".plot-note").textContent.startsWith("window [0, 0, 0, 75] + [1, 10, 90, 1]"), null, WAIT);
    await page.waitForSelector('#plot[data-ready="thetao"]', WAIT);
    assert.equal(await page.textContent('.slider[data-axis="3"] output'), "-29 degrees_east");
    assert.match(page.url(), /axes=1,2/);
    const drawn = await page.evaluate(() => ({ ny: document.querySelector("#plot").drawn.ny, nx: document.querySelector("#plot").drawn.nx, values: Array.from(document.querySelector("#plot").drawn.values) }));
    assert.deepEqual([drawn.ny, drawn.nx], [10, 90]);
    const want = await (await sample("ocean")).dataset("ocean_model_2024_monthly").read("thetao", { start: [0, 0, 0, 75], shape: [1, 10, 90, 1] });
    assert.deepEqual(drawn.values, numbers(want.data, NaN));
    // Depth grows downwards: the surface row is drawn at the top.
    const box = JSON.parse(await page.getAttribute("canvas.map", "data-box"));
    assert.equal(box.flipY, false);
    await shot(page, "section");
    await docShot(page, "axes");
  });

  it("plots one grid point of every dataset against time with readAcross", async (t) => {
    const page = await newPage(t, "?url=collections/ocean&tab=across&mode=values&variable=sst");
    await page.waitForSelector('#across-plot[data-ready="sst"]', WAIT);
    assert.deepEqual(await page.$$eval(".point input", (els) => els.map((e) => e.value)), ["0", "45", "90"], "the middle of the grid");
    // Each index named in the first grid's coordinates.
    assert.deepEqual(await page.$$eval(".point output", (els) => els.map((e) => e.textContent)), ["2024-01-01", "1 degrees_north", "1 degrees_east"]);
    assert.equal(await page.inputValue("#across-view .x"), "time:time");
    const drawn = await page.evaluate(() => {
      const d = document.querySelector("#across-plot").drawn;
      return { x: Array.from(d.x), y: Array.from(d.y), names: d.names };
    });
    const ocean = await sample("ocean");
    const want = await ocean.readAcross("sst", { start: [0, 45, 90], shape: [1, 1, 1] });
    assert.equal(drawn.names.length, 365);
    assert.deepEqual(drawn.names, want.datasets, "one point per daily grid, in time order");
    assert.deepEqual(drawn.y, Array.from(want.data));
    assert.equal(drawn.x[0], Date.UTC(2024, 0, 1) / 1000);
    assert.match(await page.textContent("#across-view .plot-note"), /^365 datasets: sst\[0, 45, 90\] of 365 read in one readAcross/);
    await docShot(page, "across-point", "#across-view");

    // Another point: the page reads it again.
    await page.locator(".point input").nth(1).fill("80");
    await page.locator(".point input").nth(1).dispatchEvent("change");
    await page.waitForFunction(() => document.querySelector("#across-plot")?.dataset.ready === "sst" && /sst\[0, 80, 90\]/.test(document.querySelector("#across-view .plot-note").textContent), null, WAIT);
    const arctic = await page.evaluate(() => Array.from(document.querySelector("#across-plot").drawn.y));
    const wantArctic = await ocean.readAcross("sst", { start: [0, 80, 90], shape: [1, 1, 1] });
    assert.deepEqual(arctic, Array.from(wantArctic.data).filter(Number.isFinite));
    assert.match(page.url(), /point=0,80,90/);
  });

  it("plots a per-profile value against the profiles' own time, the fills left out", async (t) => {
    const page = await newPage(t, "?url=collections/argo&tab=across&mode=values&variable=TEMP");
    await page.waitForSelector('#across-plot[data-ready="TEMP"]', WAIT);
    assert.deepEqual(await page.$$eval(".point input", (els) => els.map((e) => e.value)), ["0", "0"], "a profile's surface");
    assert.equal(await page.inputValue("#across-view .x"), "time:JULD");
    const argo = await sample("argo");
    const want = await argo.readAcross("TEMP", { start: [0, 0], shape: [1, 1] });
    const kept = want.datasets.filter((_, k) => want.data[k] !== 99_999);
    assert.ok(kept.length < want.datasets.length, "some surface values are 99999");
    const drawn = await page.evaluate(() => document.querySelector("#across-plot").drawn.names);
    assert.deepEqual([...drawn].sort(), [...kept].sort());
    assert.equal(await page.getAttribute("#across-plot", "data-style"), "points");
  });

  it("maps LONGITUDE against LATITUDE of every profile with readAcross", async (t) => {
    const page = await newPage(t, "?url=collections/argo&tab=across&mode=map");
    await page.waitForSelector('#across-plot[data-ready="LONGITUDE,LATITUDE"]', WAIT);
    assert.equal(await page.getAttribute("#across-plot", "data-geo"), "true");
    const argo = await sample("argo");
    const [lon, lat] = await Promise.all([argo.readAcross("LONGITUDE"), argo.readAcross("LATITUDE")]);
    const drawn = await page.evaluate(() => {
      const d = document.querySelector("#across-plot").drawn;
      return { x: d.x, y: d.y, names: d.names };
    });
    assert.equal(drawn.names.length, 160);
    assert.deepEqual(drawn.names, lon.datasets);
    assert.deepEqual(drawn.x, Array.from(lon.data));
    assert.deepEqual(drawn.y, Array.from(lat.data));
    assert.match(page.url(), /mode=map&map=LONGITUDE,LATITUDE|map=LONGITUDE,LATITUDE/);
    await docShot(page, "map", "#across-view");

    // Clicking a point opens its profile.
    const box = JSON.parse(await page.getAttribute("canvas.scatter", "data-box"));
    const at = await page.locator("canvas.scatter").boundingBox();
    const k = 7;
    const px = at.x + box.left + ((drawn.x[k] - box.x0) / (box.x1 - box.x0)) * box.width;
    const py = at.y + box.top + box.height - ((drawn.y[k] - box.y0) / (box.y1 - box.y0)) * box.height;
    await page.mouse.move(px, py);
    assert.match(await page.textContent("#across-plot .readout"), new RegExp(`^${drawn.names[k]} · LONGITUDE`));
    await page.mouse.click(px, py);
    await page.waitForFunction((name) => document.querySelector(".ds-head h2")?.textContent === name, drawn.names[k], WAIT);
    await page.waitForSelector('#plot[data-kind="profile"]', WAIT);
  });

  it("opens a local data.atlas chosen in the file picker", async (t) => {
    const page = await newPage(t, "");
    await page.waitForSelector(".empty a.sample");
    await page.setInputFiles("#file", join(SAMPLES, "argo", "data.atlas"));
    assert.equal(await rowCount(page, 161), "161 of 161 datasets");
    assert.match(await page.textContent("#status b"), /^data\.atlas \(local file\)$/);
    await page.waitForSelector('#plot[data-ready="TEMP"][data-kind="profile"]', WAIT);
    const first = await page.evaluate(() => document.querySelector("#plot").drawn.y.find((v) => v !== null));
    const temp = (await (await sample("argo")).dataset("R6903000_001").read("TEMP")).data;
    assert.ok(Number.isFinite(first));
    assert.ok(Array.from(temp).includes(first), "the drawn values come from the picked file");
    assert.ok(!page.url().includes("url="), "a local file has no shareable URL");
    // Reads went through the Blob source, which the meter counts like requests.
    assert.ok((await page.evaluate(() => window.dashboard.meter.requests)) >= 2);
    await docShot(page, "file-picker", "main");
  });

  it("opens a collection `atlas import-atria` made from an Atria cache", async (t) => {
    assert.ok(ATRIA && ATRIA_CORPUS, "www/scripts/test.sh imports the Atria corpus and sets ATLAS_WWW_ATRIA and ATLAS_ATRIA_CORPUS");
    // The truth is delta-rs's, as the corpus script recorded it.
    const truth = JSON.parse(readFileSync(join(ATRIA_CORPUS, "expected.json"), "utf8")).delta.train;
    const keys = truth.rows.map((row) => row.__key__);
    const page = await newPage(t, `?url=${other.url}/atria/train`);
    assert.equal(await rowCount(page, keys.length), `${keys.length} of ${keys.length} datasets`);
    const names = await page.evaluate(() => window.dashboard.atlas.listDatasets());
    assert.deepEqual([...names].sort(), [...keys].sort(), "one dataset per sample, named by its key");
    await page.fill("#attr-filter", "label=1");
    await rowCount(page, truth.rows.filter((row) => row.label === 1).length);
    await page.fill("#attr-filter", "");
    // A sample with a non-ASCII key: its image bytes as an array of its own.
    const key = keys.find((n) => n.includes("échantillon"));
    await page.fill("#name-filter", key);
    await rowCount(page, 1);
    await page.click(`.row[data-name="${key}"]`);
    await page.waitForFunction((name) => document.querySelector(".ds-head h2")?.textContent === name, key, WAIT);
    const image = await page.evaluate(async (name) => Array.from((await window.dashboard.atlas.dataset(name).read("image")).data), key);
    const sha256 = createHash("sha256").update(Uint8Array.from(image)).digest("hex");
    assert.equal(sha256, truth.content[key].image.expected.sha256, "the image member's bytes");
  });

  it("opens 100,000 datasets and fills its columns for the rows in view only", async (t) => {
    assert.ok(existsSync(join(SCALE, "samples.json")), `js/scripts/test.sh writes the scale collection into ${SCALE}`);
    const want = JSON.parse(readFileSync(join(SCALE, "samples.json"), "utf8"));
    other.reset();
    const page = await newPage(t, `?url=${other.url}/scale`);
    await page.waitForSelector(`.row-count[data-shown="${want.datasets}"]`, WAIT);
    assert.match(await page.textContent(".row-count"), /columns load as rows come into view/);
    // The first rows' site attribute and value statistics, read by range.
    const first = want.samples[0];
    await page.waitForFunction(
      ([name, site]) => {
        const row = document.querySelector(`.row[data-name="${name}"]`);
        return row && row.textContent.includes(site) && /\d/.test(row.lastElementChild.textContent);
      },
      [first.name, first.site],
      WAIT,
    );
    const gets = other.log.filter((e) => e.method === "GET");
    const bytes = gets.reduce((sum, e) => sum + e.bytes, 0);
    // Whole, the two segment footers the columns come from are 64 MB.
    t.diagnostic(`${want.datasets} datasets: ${bytes} bytes in ${gets.length} requests to open, fill a screenful and show a dataset`);
    assert.ok(bytes < 2 << 20, `${bytes} bytes in ${gets.length} requests to open, fill a screenful and show a dataset`);
    // Search by name, then read on click.
    const sample = want.samples.find((s) => s.value && s.name.includes("argo"));
    await page.fill("#name-filter", sample.name);
    await rowCount(page, 1);
    await page.click(`.row[data-name="${sample.name}"]`);
    await page.waitForFunction((name) => document.querySelector(".ds-head h2")?.textContent === name, sample.name, WAIT);
    await page.waitForFunction((site) => document.querySelector(".rows .row:not([hidden])")?.textContent.includes(site), sample.site, WAIT);
    const value = await page.evaluate(async (name) => Array.from((await window.dashboard.atlas.dataset(name).read("value")).data), sample.name);
    assert.deepEqual(value, sample.value);
    await shot(page, "catalogue-scale");
  });

  it("runs under Vite's dev server with no atlas-specific config", async (t) => {
    // Users develop against `vite`, not the build: the package must survive
    // Vite's dependency pre-bundling and still find its .wasm.
    const { createServer: viteServer } = await import("vite");
    const dev = await viteServer({ root: WWW, configFile: join(WWW, "vite.config.js"), logLevel: "warn", server: { host: "127.0.0.1", port: 0 } });
    await dev.listen();
    t.after(() => dev.close());
    const page = await newPage(t);
    await page.goto(`${dev.resolvedUrls.local[0]}?url=${site.url}/collections/ocean`);
    assert.equal(await rowCount(page, 663), "663 of 663 datasets · 3 hidden by deleted.mask");
    await page.waitForSelector('#plot[data-ready]', WAIT);
  });
});
