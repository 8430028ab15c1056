// What the dashboard's windowed and across-datasets reads cost, read off the
// page's request meter (window.dashboard.meter) in headless Chromium.
// Needs what scripts/prepare.sh makes (www/dist/, www/sample/out/).
//
//   node www/scripts/measure.mjs
import { chromium } from "playwright-core";
import { serveDashboard } from "./serve.mjs";

const site = await serveDashboard();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
const meter = () => page.evaluate(() => ({ requests: window.dashboard.meter.requests, bytes: window.dashboard.meter.bytes }));

/** Runs `act` and prints the requests, bytes and milliseconds it cost. */
async function cost(label, act) {
  await page.waitForTimeout(1500); // let the catalogue's own reads finish
  const before = await meter();
  const started = performance.now();
  await act();
  const after = await meter();
  console.log(`${label}: ${after.requests - before.requests} requests, ${(after.bytes - before.bytes).toLocaleString("en")} bytes, ${Math.round(performance.now() - started)} ms`);
}

await page.goto(`${site.url}/?url=collections/argo&ds=bathymetry_15min`);
await page.waitForSelector('#plot[data-ready="elevation"]');
await cost("pan elevation[720, 1440] from [0, 0] to [0, 416]", async () => {
  await page.click('[data-pan="right"]');
  await page.waitForFunction(() => document.querySelector(".plot-note").textContent.startsWith("window [0, 416]"));
  await page.waitForSelector('#plot[data-ready="elevation"]');
});

for (const [label, collection, variable, mode, ready] of [
  ["values sst[0, 45, 90] of 365 datasets", "ocean", "sst", "values", "sst"],
  ["values TEMP[0, 0] of 160 profiles", "argo", "TEMP", "values", "TEMP"],
  ["map LONGITUDE/LATITUDE of 160 profiles", "argo", "TEMP", "map", "LONGITUDE,LATITUDE"],
]) {
  await page.goto(`${site.url}/?url=collections/${collection}&tab=across&variable=${variable}`);
  await page.waitForSelector(`#across-plot[data-ready="${variable}"]`);
  await cost(label, async () => {
    await page.click(`.across-modes [data-mode="${mode}"]`);
    await page.waitForSelector(`#across-plot[data-mode="${mode}"][data-ready="${ready}"]`, { timeout: 60_000 });
  });
}
const whole = await meter();
console.log(`(the last page in all: ${whole.requests} requests, ${whole.bytes.toLocaleString("en")} bytes)`);
await browser.close();
await site.close();
