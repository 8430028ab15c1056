// The HTTP source in headless Chromium when a cross-origin server omits
// `Access-Control-Expose-Headers`: the browser hands the page the 206 and
// its body but hides `Content-Range` and `ETag`. Without `Content-Range`
// the reader can neither learn the object's size from a tail nor check that
// the bytes are the range it asked for, so it refuses with
// `RangeNotSupported` and a message that names the missing header. The same
// server on the page's own origin (nothing hidden) reads normally.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium } from "playwright-core";
import { FIXTURES, expected } from "./expect.mjs";
import { startServer } from "./server.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));
const PAGE = `<!doctype html>
<script type="importmap">{ "imports": { "atlas-wasm": "./atlas-wasm/dist/browser.js" } }</script>
<script type="module">
  window.atlasWasm = await import("atlas-wasm");
  document.title = "ready";
</script>`;

let site, data, browser, page, root;
before(async () => {
  root = mkdtempSync(join(tmpdir(), "atlas-cors-"));
  writeFileSync(join(root, "index.html"), PAGE);
  symlinkSync(PACKAGE, join(root, "atlas-wasm"));
  symlinkSync(FIXTURES, join(root, "fixtures"));
  site = await startServer({ root });
  data = await startServer({ root: FIXTURES }); // another port: another origin
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage();
  page.on("pageerror", (e) => console.error("page error:", e));
  await page.goto(`${site.url}/index.html`);
  await page.waitForFunction(() => document.title === "ready");
});
after(async () => {
  await browser?.close();
  await site?.close();
  await data?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Opens `url` in the page: the dataset names, or the error's code and message. */
function open(url) {
  return page.evaluate(async (url) => {
    const { Atlas, AtlasError } = window.atlasWasm;
    try {
      const atlas = await Atlas.open(url);
      const names = atlas.listDatasets();
      atlas.close();
      return { names };
    } catch (e) {
      return e instanceof AtlasError ? { code: e.code, message: e.message } : { code: `not an AtlasError: ${e}` };
    }
  }, url);
}

describe("in headless Chromium, without Access-Control-Expose-Headers", () => {
  it("a cross-origin 206 with hidden headers is RangeNotSupported, naming the header, in one request", async () => {
    data.reset();
    const got = await open(`${data.url}/~no-expose/every_dtype_zstd`);
    assert.equal(got.code, "RangeNotSupported", JSON.stringify(got));
    assert.match(got.message, /Access-Control-Expose-Headers: Content-Range/);
    const gets = data.log.filter((e) => e.method === "GET" && e.url.endsWith("/data.atlas"));
    assert.equal(gets.length, 1, "refused at the first answer, without retries");
    assert.equal(gets[0].status, 206, "the server did answer the range");
  });

  it("the same server on the page's origin reads (nothing is hidden there)", async () => {
    const got = await open(`${site.url}/~no-expose/fixtures/every_dtype_zstd`);
    assert.deepEqual(got.names, expected("every_dtype_zstd").datasets.map((d) => d.name));
  });
});
