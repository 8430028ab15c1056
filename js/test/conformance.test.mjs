// One conformance suite over every JavaScript source: HTTP (against the
// local server of ./server.mjs), R2 in workerd (through miniflare), Blob,
// bytes and a custom object. Each case ends in the right bytes or one
// specific error code, within a bounded number of requests; HTTP then runs
// the fault table tests/source_conformance.rs runs for the native source.
//
// Sources are driven as the core drives them: through the package's own
// normalisation (`toSource`, dist/sources.js), which every source passes
// before it reaches the wasm core. Cases a source cannot meet by
// construction are skipped where they are listed, with the reason.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { Miniflare } from "miniflare";
import { Atlas, AtlasError } from "atlas-wasm";
import { FAULTS, startServer } from "./server.mjs";

const PACKAGE = dirname(createRequire(import.meta.url).resolve("atlas-wasm/package.json"));
const { toSource } = await import(pathToFileURL(join(PACKAGE, "dist", "sources.js")).href);

/** A recognisable object: byte `i` is `i * 7 + seed`, wrapping. */
const object = (length, seed) => Uint8Array.from({ length }, (_, i) => (i * 7 + seed) & 255);

/** The code a promise rejects with (an AtlasError), or a failure. */
async function code(promise) {
  try {
    const value = await promise;
    assert.fail(`expected an error, got ${JSON.stringify(value)?.slice(0, 80)}`);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    assert.ok(error?.code, `an error with a code, not ${error}`);
    return error.code;
  }
}

// A source may answer one Uint8Array or the chunks of one answer (sources.js, `Bytes`).
const same = (got, want, label) => assert.deepEqual(Buffer.concat([got].flat()), Buffer.from(want), label);

// ─── Backends: where objects live, and how a source reads one ──────────────
//
// A case's request bound is one request per call (a retry or a second look
// is a failure), counted by the server, the Worker, or the source's reads.
//
// put(key, bytes) creates or replaces; source(key) is the normalised source;
// requests(key) counts requests for it so far; replaced / missing say what a
// source does when the object is replaced mid-session or absent.

let root, server, r2;
before(async () => {
  root = mkdtempSync(join(tmpdir(), "atlas-conformance-"));
  server = await startServer({ root });
  r2 = await workerdR2();
});
after(async () => {
  await server?.close();
  await r2?.dispose();
  rmSync(root, { recursive: true, force: true });
});

function memoryBackend(label, make) {
  const objects = new Map();
  const reads = new Map();
  return {
    label,
    put: (key, bytes) => objects.set(key, bytes),
    source(key) {
      const inner = make(objects.get(key));
      const counted = { ...inner, read: (o, n, s) => (reads.set(key, (reads.get(key) ?? 0) + 1), inner.read(o, n, s)) };
      return toSource(counted, "data");
    },
    requests: (key) => reads.get(key) ?? 0,
    short: undefined,
    replaced: "a source over bytes in memory holds them: they cannot be replaced",
    missing: "a source over bytes in memory cannot be missing",
  };
}

const bytesBackend = () => memoryBackend("bytes", (bytes) => Atlas.fromBytes(bytes));
const blobBackend = () => memoryBackend("Blob", (bytes) => Atlas.fromBlob(new Blob([bytes])));

/** A user's object (`size` + `read`); `skew` makes it answer that many bytes too many. */
function customBackend() {
  const backend = memoryBackend("custom object", (bytes) => ({
    size: async () => bytes.length,
    read: async (o, n) => bytes.slice(o, Math.min(bytes.length, o + n + backend.skew)),
  }));
  backend.skew = 0;
  backend.replaced = "a custom object is its owner's: what it answers after a replacement is up to it";
  backend.missing = "a custom object is its owner's: it has no 'missing' of its own";
  // A custom source that answers short or long is held to the length asked.
  backend.misshape = (skew) => (backend.skew = skew);
  backend.shapeCode = "Io";
  return backend;
}

function httpBackend() {
  const counted = (path) => server.log.filter((e) => e.url.endsWith(`/${path}`)).length;
  return {
    label: "HTTP",
    put(key, bytes) {
      // As every atlas writer replaces a file: a new file renamed over it.
      writeFileSync(join(root, `${key}.new`), bytes);
      renameSync(join(root, `${key}.new`), join(root, key));
    },
    source: (key, knob = "") => toSource(Atlas.fromUrl(`${server.url}${knob}/${key}`, { timeout: 5000 }), "data"),
    requests: (key) => counted(key),
    replaced: "Changed",
    missing: "NotFound",
    misshape: undefined,
    shapeCode: "RangeNotSupported",
  };
}

/**
 * R2 in workerd: a Worker that holds sessions (`Atlas.fromR2` through
 * `toSource`, both from the package's dist) and answers one JSON command
 * per request.
 */
async function workerdR2() {
  const root = "/bundle";
  const modules = [{ type: "ESModule", path: `${root}/worker.js`, contents: R2_WORKER }];
  for (const file of ["r2.js", "sources.js", "errors.js", "limit.js"]) {
    modules.push({ type: "ESModule", path: `${root}/${file}`, contents: readFileSync(join(PACKAGE, "dist", file), "utf8") });
  }
  const mf = new Miniflare({ modules, modulesRoot: root, compatibilityDate: "2026-04-01", cf: false, r2Buckets: ["BUCKET"] });
  const bucket = await mf.getR2Bucket("BUCKET");
  const call = async (command) => (await mf.dispatchFetch("http://worker/", { method: "POST", body: JSON.stringify(command) })).json();
  let sessions = 0;
  return {
    dispose: () => mf.dispose(),
    backend: {
      label: "R2 in workerd",
      put: (key, bytes) => bucket.put(key, bytes),
      source(key) {
        const id = ++sessions;
        const answer = (out) => {
          if (out.code) throw new AtlasError(out.message, out.code);
          return out;
        };
        return {
          readTail: async (length) => {
            const out = answer(await call({ op: "tail", id, key, length }));
            return { bytes: Uint8Array.from(out.bytes), size: out.size };
          },
          read: async (offset, length) => Uint8Array.from(answer(await call({ op: "read", id, key, offset, length })).bytes),
        };
      },
      requests: async (key) => (await call({ op: "gets", key })).gets,
      replaced: "Changed",
      missing: "NotFound",
      misshape: undefined,
    },
  };
}

const R2_WORKER = `
import { r2Source } from "./r2.js";
import { toSource } from "./sources.js";
const sessions = new Map();
const gets = new Map();
export default {
  async fetch(request, env) {
    const c = await request.json();
    if (c.op === "gets") return Response.json({ gets: gets.get(c.key) ?? 0 });
    const bucket = { get: (key, options) => (gets.set(key, (gets.get(key) ?? 0) + 1), env.BUCKET.get(key, options)) };
    if (!sessions.has(c.id)) sessions.set(c.id, toSource(r2Source(bucket, c.key), "data"));
    const source = sessions.get(c.id);
    try {
      const out = c.op === "tail" ? await source.readTail(c.length) : { bytes: await source.read(c.offset, c.length) };
      return Response.json({ bytes: Array.from(out.bytes), size: out.size });
    } catch (error) {
      return Response.json({ code: error.code ?? "thrown", message: String(error.message ?? error) });
    }
  },
};`;

const backends = () => [httpBackend(), r2.backend, blobBackend(), bytesBackend(), customBackend()];

/** Keys unique to one case and backend, so request counts start at 0. */
let keys = 0;
const fresh = (name) => `${name}-${++keys}`;

// ─── The cases, for every source ───────────────────────────────────────────

describe("every JavaScript source", () => {
  it("short and long tails and ranges give the right bytes", async () => {
    const bytes = object(1000, 3);
    for (const b of backends()) {
      const key = fresh("obj");
      await b.put(key, bytes);
      const s = b.source(key);
      let t = await s.readTail(100);
      same(t.bytes, bytes.subarray(900), b.label);
      assert.equal(t.size, 1000, b.label);
      t = await s.readTail(5000);
      same(t.bytes, bytes, `${b.label}: a tail longer than the object`);
      assert.equal(t.size, 1000, b.label);
      same(await s.read(10, 10), bytes.subarray(10, 20), b.label);
      same(await s.read(0, 1000), bytes, b.label);
      same(await s.read(5, 0), new Uint8Array(0), `${b.label}: an empty read`);
      assert.ok((await b.requests(key)) <= 5, `${b.label}: ${await b.requests(key)} requests for 5 calls`);
    }
  });

  it("a short or a long answer is an error, never data", async () => {
    const bytes = object(1000, 4);
    for (const b of backends()) {
      const key = fresh("shape");
      await b.put(key, bytes);
      if (b.label === "HTTP") {
        for (const knob of ["/~short", "/~long"]) {
          assert.equal(await code(b.source(key, knob).read(10, 10)), "RangeNotSupported", `${b.label} ${knob}`);
          assert.equal(await code(b.source(key, knob).readTail(100)), "RangeNotSupported", `${b.label} ${knob} tail`);
        }
        assert.ok(b.requests(key) <= 4, `${b.label}: one request each`);
      } else if (b.misshape) {
        for (const skew of [-1, 1]) {
          b.misshape(skew);
          assert.equal(await code(b.source(key).read(10, 10)), b.shapeCode, `${b.label} skew ${skew}`);
        }
        b.misshape(0);
      }
      // Bytes, Blob and R2 answer what they hold: they cannot answer short or long.
    }
  });

  it("a read past the end is OutOfBounds, before and after the size is known", async () => {
    const bytes = object(1000, 5);
    for (const b of backends()) {
      const key = fresh("past");
      await b.put(key, bytes);
      for (const pinned of [false, true]) {
        const s = b.source(key);
        if (pinned) await s.readTail(10);
        assert.equal(await code(s.read(990, 20)), "OutOfBounds", `${b.label} pinned=${pinned}`);
        assert.equal(await code(s.read(2000, 10)), "OutOfBounds", `${b.label} pinned=${pinned}`);
      }
      assert.ok((await b.requests(key)) <= 5, `${b.label}: ${await b.requests(key)} requests for 5 calls`);
    }
  });

  it("an empty object has an empty tail", async () => {
    for (const b of backends()) {
      const key = fresh("empty");
      await b.put(key, new Uint8Array(0));
      const s = b.source(key);
      const t = await s.readTail(64);
      assert.equal(t.bytes.length, 0, b.label);
      assert.equal(t.size, 0, b.label);
      same(await s.read(0, 0), new Uint8Array(0), b.label);
      assert.equal(await code(s.read(0, 1)), "OutOfBounds", b.label);
      assert.ok((await b.requests(key)) <= 3, `${b.label}: ${await b.requests(key)} requests for 3 calls`);
    }
  });

  it("a missing object is NotFound", async () => {
    for (const b of backends()) {
      if (b.missing !== "NotFound") continue; // b.missing says why
      const key = fresh("absent");
      assert.equal(await code(b.source(key).readTail(64)), "NotFound", b.label);
      assert.equal(await code(b.source(key).read(0, 10)), "NotFound", b.label);
      assert.equal(await b.requests(key), 2, `${b.label}: one request each, no retries`);
    }
  });

  it("an object replaced mid-session is ObjectChanged", async () => {
    const [old, replacement] = [object(1000, 1), object(1200, 2)];
    let checked = 0;
    for (const b of backends()) {
      if (b.replaced !== "Changed") continue; // b.replaced says why
      const key = fresh("replaced");
      await b.put(key, old);
      const s = b.source(key);
      await s.readTail(100);
      await b.put(key, replacement);
      assert.equal(await code(s.read(0, 10)), "ObjectChanged", b.label);
      assert.equal(await code(s.readTail(10)), "ObjectChanged", b.label);
      assert.ok((await b.requests(key)) <= 3, `${b.label}: ${await b.requests(key)} requests`);
      checked++;
    }
    assert.equal(checked, 2, "HTTP and R2");
  });
});

// ─── The HTTP fault table ──────────────────────────────────────────────────
//
// tests/http_faults.json: the fault cases this server and the native one
// (tests/source_conformance.rs) both serve, each with what the source must
// end in. Beside the tests in the packed copy (js/scripts/test.sh copies
// it), in tests/ of a checkout.

const FAULT_TABLE = JSON.parse(
  readFileSync(["./http_faults.json", "../../tests/http_faults.json"].map((p) => new URL(p, import.meta.url)).find(existsSync), "utf8"),
);
const CASE_KEYS = new Set(["name", "fault", "size", "options", "steps", "statuses", "if_match"]);
const STEP_KEYS = new Set(["tail", "read", "replace", "expect", "status", "message", "within_ms"]);

/** Fails on a key of the table this side does not know how to serve or assert. */
function known(entry, keys, name) {
  assert.deepEqual(Object.keys(entry).filter((k) => !keys.has(k)), [], `${name}: keys this side does not know`);
}

describe("the HTTP fault table", () => {
  it("server.mjs serves exactly its faults, and answers any other 501", async () => {
    assert.deepEqual([...FAULTS].sort(), Object.keys(FAULT_TABLE.faults).sort());
    const response = await fetch(`${server.url}/~no-such-fault/x`);
    assert.equal(response.status, 501);
  });
});

// In Node the package reads URLs over node:http (dist/node-fetch.js); a
// `fetch` option (here Node's own) takes its place. Both meet the table.
const TRANSPORTS = [
  ["node:http", {}],
  ["fetch", { fetch: globalThis.fetch }],
];

for (const [transport, through] of TRANSPORTS) {
  describe(`HTTP over ${transport} against a server that misbehaves`, () => {
    const http = httpBackend();
    const large = object(200_000, 8);
    let largeKey;
    before(() => {
      largeKey = fresh("large");
      http.put(largeKey, large);
    });
    const source = (knob, key = largeKey, options = {}) =>
      toSource(Atlas.fromUrl(`${server.url}${knob}/${key}`, { timeout: 5000, ...through, ...options }), "data");

    for (const [i, c] of FAULT_TABLE.cases.entries()) {
      it(`fault table: ${c.name}`, async () => {
        known(c, CASE_KEYS, c.name);
        const size = c.size ?? 1000;
        const key = fresh(`fault-${i}`);
        let current = object(size, i);
        http.put(key, current);
        const options = {};
        for (const [option, value] of Object.entries(c.options ?? {})) {
          if (option === "retries") options.retries = value;
          else if (option === "timeout_ms") options.timeout = value;
          else assert.fail(`${c.name}: option ${option} is not one this side knows`);
        }
        const s = source(`/~${c.fault}`, key, options);
        const start = server.log.length;
        for (const step of c.steps) {
          known(step, STEP_KEYS, c.name);
          if (step.replace) {
            current = object(size, i ^ 0x55);
            http.put(key, current);
            continue;
          }
          const began = Date.now();
          let got, want;
          if ("tail" in step) {
            got = s.readTail(step.tail).then((t) => (assert.equal(t.size, size, `${c.name}: the size`), t.bytes));
            want = current.subarray(size - Math.min(step.tail, size));
          } else if ("read" in step) {
            const [from, to] = step.read;
            got = s.read(from, to - from);
            want = current.subarray(from, to);
          } else {
            assert.fail(`${c.name}: a step that is no tail, read or replace: ${JSON.stringify(step)}`);
          }
          if (step.expect === "bytes") {
            same(await got, want, c.name);
          } else {
            await assert.rejects(got, (e) => {
              assert.equal(e.code, step.expect, `${c.name}: ${e.message}`);
              if ("status" in step) assert.equal(e.status, step.status, c.name);
              if ("message" in step) assert.ok(e.message.includes(step.message), `${c.name}: ${e.message}`);
              return true;
            });
          }
          if ("within_ms" in step) {
            const took = Date.now() - began;
            assert.ok(took >= (options.timeout ?? 0) && took < step.within_ms, `${c.name}: ${took} ms`);
          }
        }
        const seen = server.log.slice(start).filter((e) => e.url.endsWith(`/${key}`));
        assert.deepEqual(seen.map((e) => e.status), c.statuses, `${c.name}: statuses`);
        if (c.if_match) assert.deepEqual(seen.map((e) => Boolean(e.ifMatch)), c.if_match, `${c.name}: If-Match sent`);
      });
    }

    it("the default timeout is finite, and a bad one is InvalidArgument", async () => {
      for (const timeout of [0, -1, Infinity, NaN, 2 ** 31]) {
        assert.throws(() => Atlas.fromUrl(`${server.url}/x`, { timeout }), (e) => e.code === "InvalidArgument", String(timeout));
      }
    });

    it("headers given as a record, pairs or Headers reach the server; a bad one is InvalidArgument", async () => {
      for (const headers of [{ Authorization: "Bearer a" }, [["authorization", "Bearer a"]], new Headers({ Authorization: "Bearer a" })]) {
        const start = server.log.length;
        await source("", largeKey, { headers }).readTail(100);
        assert.equal(server.log[start].authorization, "Bearer a");
      }
      for (const headers of [{ "bad name": "x" }, { "X-Ok": "line\nbreak" }, [["only-a-name"]], "Authorization: x"]) {
        assert.throws(() => source("", largeKey, { headers }), (e) => e.code === "InvalidArgument", JSON.stringify(headers));
      }
    });

    it("a body far longer than its range is RangeNotSupported, and node:http stops reading it", async () => {
      // A 206 with the right Content-Range and a chunked body of 64 MiB.
      let sent = 0;
      let finished = false;
      const endless = createServer(async (req, res) => {
        res.writeHead(206, { "Content-Range": "bytes 0-99/1000000" });
        const chunk = new Uint8Array(1 << 20);
        for (let i = 0; i < 64 && !res.destroyed; i++) {
          sent += chunk.length;
          if (!res.write(chunk)) await new Promise((ok) => res.once("drain", ok).once("close", ok));
        }
        finished = !res.destroyed;
        res.end();
      });
      await new Promise((ok) => endless.listen(0, "127.0.0.1", ok));
      try {
        const s = toSource(Atlas.fromUrl(`http://127.0.0.1:${endless.address().port}/x`, { timeout: 5000, ...through }), "data");
        assert.equal(await code(s.read(0, 100)), "RangeNotSupported");
        if (transport === "node:http") {
          await new Promise((ok) => setTimeout(ok, 50));
          assert.ok(!finished && sent < 16 << 20, `stopped reading: ${sent} bytes sent`);
        }
      } finally {
        endless.closeAllConnections();
        endless.close();
      }
    });

    it("credentials do not follow a redirect to another origin", async () => {
      // A second server on another port: another origin, redirecting to the first.
      const other = createServer((req, res) => {
        res.writeHead(302, { Location: `${server.url}${req.url}` });
        res.end();
      });
      await new Promise((ok) => other.listen(0, "127.0.0.1", ok));
      try {
        const start = server.log.length;
        const s = toSource(Atlas.fromUrl(`http://127.0.0.1:${other.address().port}/${largeKey}`, { headers: { Authorization: "Bearer a" }, ...through }), "data");
        same((await s.readTail(100)).bytes, large.subarray(-100));
        assert.equal(server.log[start].authorization, undefined);
      } finally {
        other.close();
      }
    });
  });
}
