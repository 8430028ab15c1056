// The HTTP source in headless Chromium when a cross-origin server omits
// `Access-Control-Expose-Headers`: the browser hands the page the 206 and
// its body but hides `Content-Range` and `ETag`. Without `Content-Range`
// the reader can neither learn the object's size from a tail nor check that
// the bytes are the range it asked for, so it refuses with
// `RangeNotSupported` and a message that names the missing header. The same
// server on the page's own origin (nothing hidden) reads normally.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FIXTURES, expected } from "./expect.mjs";
import { openPage } from "./page.mjs";
import { startServer } from "./server.mjs";

let site, data, page, closePage;
before(async () => {
  ({ site, page, close: closePage } = await openPage());
  data = await startServer({ root: FIXTURES }); // another port: another origin
});
after(async () => {
  await closePage?.();
  await data?.close();
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
