// The dashboard end to end in headless Chromium (Debian's, driven by
// playwright-core): the built www/dist/ and the sample collections served by
// the package's Range server, a second origin for CORS, and hostile servers.
// Assertions read the DOM and the pixels of the canvases; screenshots go to
// www/test/artifacts/.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { chromium } from "playwright-core";
import { startServer } from "../../js/test/server.mjs";
import { SAMPLES, serveDashboard } from "../scripts/serve.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
const WAIT = { timeout: 20_000 };

let site, other, noCors, browser, scratch;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // The second origin serves the ocean sample and a file that is no collection.
  scratch = mkdtempSync(join(tmpdir(), "atlas-www-"));
  symlinkSync(join(SAMPLES, "ocean"), join(scratch, "ocean"));
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
    await page.waitForSelector('#plot[data-ready="temp"][data-kind="line"]', WAIT);
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
    assert.match(await page.textContent(".plot-note"), /^311 values, 3 missing · against coordinate pres/);

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
});
