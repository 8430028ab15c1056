// A page in headless Debian Chromium that imports the installed package
// through an import map, served with the fixtures beside it: what the browser
// tests share. `extra` is script run after the import (hooks a test needs).
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { chromium } from "playwright-core";
import { FIXTURES } from "./expect.mjs";
import { startServer } from "./server.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));

/**
 * `{site, root, browser, page, close}`: the page loaded and its package
 * imported; `root` is the directory served. `args` are more Chromium flags.
 */
export async function openPage(extra = "", { args = [] } = {}) {
  const root = mkdtempSync(join(tmpdir(), "atlas-page-"));
  writeFileSync(
    join(root, "index.html"),
    `<!doctype html>
<script type="importmap">{ "imports": { "atlas-wasm": "./atlas-wasm/dist/browser.js" } }</script>
<script type="module">
  window.atlasWasm = await import("atlas-wasm");
  ${extra}
  document.title = "ready";
</script>`,
  );
  symlinkSync(PACKAGE, join(root, "atlas-wasm"));
  symlinkSync(FIXTURES, join(root, "fixtures"));
  const site = await startServer({ root });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", ...args],
  });
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.error("page error:", e));
  await page.goto(`${site.url}/index.html`);
  await page.waitForFunction(() => document.title === "ready");
  const close = async () => {
    await browser.close();
    await site.close();
    rmSync(root, { recursive: true, force: true });
  };
  return { site, root, browser, page, close };
}

/**
 * `openPage` with `atlas-wasm/atria` imported as `window.atria`, and the
 * canonical form the Node tests compare with (atria-canonical.mjs) as
 * `window.canon`, loaded from a Blob so that both sides use one module.
 */
export async function openAtriaPage() {
  const canonical = readFileSync(new URL("./atria-canonical.mjs", import.meta.url), "utf8");
  return openPage(`
    window.atria = await import("./atlas-wasm/dist/atria-browser.js");
    window.canon = await import(URL.createObjectURL(new Blob([${JSON.stringify(canonical)}], { type: "text/javascript" })));`);
}
