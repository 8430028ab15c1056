// Runs every consumer app against the packed package: `node run.mjs
// TARBALL` (run.sh prepares the tools and the tarball). Each app is copied
// to .run/NAME, installs the tarball as a user would, and is built and run
// where its users run it; what it read is held against expected.json
// (check.mjs) and printed, with the time each took.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { createServer as viteServer } from "vite";
import webpack from "webpack";
import { Miniflare } from "miniflare";
import { startServer } from "../test/server.mjs";
import { FIXTURES } from "../test/expect.mjs";
import { check } from "./check.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const tarball = resolve(process.argv[2] ?? "");
const work = join(here, ".run");
const bin = (name) => join(here, "node_modules/.bin", name);
const FIXTURE = "every_dtype_zstd";
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

if (!existsSync(tarball) || !FIXTURES) {
  console.error("usage: ATLAS_FIXTURES=DIR node run.mjs atlas-wasm-X.Y.Z.tgz");
  process.exit(2);
}

/** A fresh copy of app `name` with the shared files and the package installed. */
async function app(name, as = name) {
  const dir = join(work, as);
  cpSync(join(here, name), dir, { recursive: true });
  cpSync(join(here, "shared"), dir, { recursive: true });
  await run("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", tarball], dir);
  return dir;
}

/** Runs a command; the event loop stays free, for the data server in this process. */
async function run(command, args, cwd) {
  const { stdout, stderr } = await promisify(execFile)(command, args, { cwd, maxBuffer: 64 << 20, timeout: 180_000 }).catch((error) => {
    throw new Error(`${error.message}${error.stdout ?? ""}${error.stderr ?? ""}`);
  });
  if (stderr.trim()) console.error(stderr.trimEnd());
  return stdout;
}

let browser;
async function inChromium(url, data) {
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  try {
    await page.goto(`${url}?data=${encodeURIComponent(`${data.url}/${FIXTURE}`)}`);
    await page.waitForFunction(() => document.title === "done", null, { timeout: 60_000 }).catch(() => {
      throw new Error(`the page never finished: ${errors.join("; ") || "no error logged"}`);
    });
    const result = await page.evaluate(() => window.atlasResult);
    if (result.failed && errors.length) result.failed += ` (console: ${errors.join("; ")})`;
    if (!result.failed && !(result.workers > 0)) result.failed = "no decode Web Worker loaded its script and the decode module";
    return result;
  } finally {
    await page.close();
  }
}

async function served(root, body) {
  const site = await startServer({ root });
  try {
    return await body(site.url);
  } finally {
    await site.close();
  }
}

const consumers = {
  async "vite build"(data) {
    const dir = await app("vite");
    await run(bin("vite"), ["build", "--logLevel", "warn"], dir);
    return served(join(dir, "dist"), (url) => inChromium(`${url}/index.html`, data));
  },
  async "vite dev server"(data) {
    const dir = await app("vite", "vite-dev");
    const server = await viteServer({ root: dir, logLevel: "warn", server: { host: "127.0.0.1", port: 0 } });
    await server.listen();
    try {
      return await inChromium(server.resolvedUrls.local[0], data);
    } finally {
      await server.close();
    }
  },
  async "webpack 5"(data) {
    const dir = await app("webpack");
    const config = (await import(join(dir, "webpack.config.js"))).default;
    const stats = await new Promise((done, fail) => webpack({ ...config, context: dir }, (e, s) => (e ? fail(e) : done(s))));
    if (stats.hasErrors()) throw new Error(stats.toString("errors-only"));
    return served(dir, (url) => inChromium(`${url}/index.html`, data));
  },
  async "plain ESM page, import map"(data) {
    const dir = await app("importmap");
    return served(dir, (url) => inChromium(`${url}/index.html`, data));
  },
  async "Node ESM"(data) {
    const dir = await app("node");
    return JSON.parse(await run(process.execPath, ["main.js", `${data.url}/${FIXTURE}`], dir));
  },
  async Bun(data) {
    const dir = join(work, "node");
    return JSON.parse(await run(bin("bun"), ["main.js", `${data.url}/${FIXTURE}`], dir));
  },
  async "Worker (esbuild as wrangler, workerd, R2)"() {
    const dir = await app("worker");
    await run(process.execPath, ["build.mjs"], dir);
    const mf = new Miniflare({
      scriptPath: join(dir, "dist/worker.js"),
      modules: true,
      modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }],
      compatibilityDate: "2026-04-01",
      cf: false,
      r2Buckets: ["COLLECTIONS"],
    });
    try {
      const bucket = await mf.getR2Bucket("COLLECTIONS");
      await bucket.put(`${FIXTURE}/data.atlas`, new Uint8Array(readFileSync(join(FIXTURES, FIXTURE, "data.atlas"))));
      return await (await mf.dispatchFetch(`http://worker/?prefix=${FIXTURE}`)).json();
    } finally {
      await mf.dispose();
    }
  },
  async "types (tsc --strict, bundler and node16)"() {
    const dir = await app("types");
    for (const project of ["tsconfig.bundler.json", "tsconfig.node16.json"]) await run(bin("tsc"), ["-p", project], dir);
    return "typed";
  },
};

rmSync(work, { recursive: true, force: true });
const data = await startServer({ root: FIXTURES }); // another origin than the pages: CORS as deployed
const only = process.env.ATLAS_CONSUMERS?.split(",");
const failed = [];
const started = performance.now();
for (const [name, body] of Object.entries(consumers)) {
  if (only && !only.some((o) => name.startsWith(o))) continue;
  const t0 = performance.now();
  try {
    const result = await body(data);
    let said = result === "typed" ? "index.d.ts and atria.d.ts accepted every use in types/app.ts and types/atria.ts" : check(result, FIXTURE);
    if (result.workers) said += `; decode Web Workers ready: ${result.workers}`;
    console.log(`ok   ${name} (${((performance.now() - t0) / 1000).toFixed(1)} s): ${said}`);
  } catch (error) {
    failed.push(name);
    console.log(`FAIL ${name} (${((performance.now() - t0) / 1000).toFixed(1)} s): ${error?.stack ?? error}`);
  }
}
await browser?.close();
await data.close();
console.log(`consumers: ${failed.length ? `${failed.length} failed (${failed.join(", ")})` : "all passed"} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed.length ? 1 : 0);
