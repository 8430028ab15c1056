/**
 * Opening a collection by URL or from a dropped file, counting what it costs
 * (requests and bytes), and turning failures into messages that name the fix.
 *
 * The package names transport failures by code (RangeNotSupported,
 * ContentEncoded, HttpStatus, Network, Timeout, Io), but a browser hides why
 * a fetch was refused: a CORS refusal and a dead host are both `Network`.
 * So after a transport failure we ask the server once more ourselves, with a
 * CORS-safelisted `Range: bytes=0-15` (no preflight), and read the answer.
 */
import { Atlas, AtlasError } from "atlas-wasm";

/** The codes of failures between the page and the server. */
const TRANSPORT = new Set(["Io", "RangeNotSupported", "ContentEncoded", "HttpStatus", "Network", "Timeout"]);

/**
 * What reading has cost since the collection was opened: requests, bytes
 * received, and the batch in flight now (bytes expected and arrived), for
 * the progress bar. Bytes are counted as they stream in.
 */
export class Meter extends EventTarget {
  requests = 0;
  bytes = 0;
  inFlight = 0;
  batch = { expected: 0, arrived: 0 };

  changed() {
    this.dispatchEvent(new Event("change"));
  }

  #begin(expected = 0) {
    if (this.inFlight === 0) this.batch = { expected: 0, arrived: 0 };
    this.requests++;
    this.inFlight++;
    this.batch.expected += expected;
    this.changed();
  }

  #arrived(n) {
    this.bytes += n;
    this.batch.arrived += n;
    this.changed();
  }

  #end() {
    this.inFlight--;
    this.changed();
  }

  /** A `fetch` for `Atlas.open(url, {fetch})` that counts each body as it streams. */
  fetch = async (input, init) => {
    this.#begin();
    let response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      this.#end();
      throw error;
    }
    const length = Number(response.headers.get("Content-Length"));
    if (Number.isFinite(length)) {
      this.batch.expected += length;
      this.changed();
    }
    if (!response.body) {
      this.#end();
      return response;
    }
    const reader = response.body.getReader();
    let open = true;
    const done = () => {
      if (open) {
        open = false;
        this.#end();
      }
    };
    const body = new ReadableStream({
      pull: async (controller) => {
        try {
          const { done: finished, value } = await reader.read();
          if (finished) {
            done();
            controller.close();
            return;
          }
          this.#arrived(value.byteLength);
          controller.enqueue(value);
        } catch (error) {
          done();
          controller.error(error);
        }
      },
      cancel: (reason) => {
        done();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  /** A source over `blob` that counts its reads like requests. */
  blobSource(blob) {
    const inner = Atlas.fromBlob(blob);
    return {
      size: blob.size,
      describe: () => `file ${blob.name || "(blob)"}`,
      read: async (offset, length, signal) => {
        this.#begin(length);
        try {
          const bytes = await inner.read(offset, length, signal);
          this.#arrived(bytes.length);
          return bytes;
        } finally {
          this.#end();
        }
      },
    };
  }
}

/** The collection directory a user meant: `…/data.atlas` and a missing slash forgiven. */
export function collectionUrl(text) {
  const url = new URL(text.trim(), location.href);
  url.pathname = url.pathname.replace(/\/(data\.atlas|deleted\.mask)$/, "/");
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

/** Opens `url` (a collection directory); throws a `Problem` a person can act on. */
export async function openUrl(text, { signal, meter }) {
  let url;
  try {
    url = collectionUrl(text);
  } catch {
    throw new Problem("Not a URL", `“${text}” is not a URL. Give the address of a collection's directory, the one holding data.atlas.`, "InvalidArgument");
  }
  const started = performance.now();
  try {
    const atlas = await Atlas.open(url.href, { signal, fetch: meter.fetch });
    return { atlas, ms: performance.now() - started, label: url.href };
  } catch (error) {
    throw await explainUrl(error, url);
  }
}

/** Opens dropped files: a data.atlas and, when given, its deleted.mask. */
export async function openFiles(files, { signal, meter }) {
  const list = [...files];
  const mask = list.find((f) => f.name.endsWith("deleted.mask"));
  const data = list.find((f) => f !== mask);
  if (!data) throw new Problem("No data.atlas", "Drop a collection's data.atlas (and, if it has one, its deleted.mask).", "InvalidArgument");
  const started = performance.now();
  try {
    const atlas = await Atlas.open({ data: meter.blobSource(data), mask: mask ? meter.blobSource(mask) : null }, { signal });
    const label = `${data.name}${mask ? ` + ${mask.name}` : ""} (local file)`;
    return { atlas, ms: performance.now() - started, label };
  } catch (error) {
    if (error?.code === "Aborted") throw error;
    if (error?.code === "NotAnAtlasCollection" || error?.code === "CorruptCollection" || error?.code === "UnsupportedVersion") {
      throw new Problem("Not an ATLAS collection", `The file ${data.name} is not an ATLAS collection: ${error.message}`, error.code);
    }
    throw Problem.from(error);
  }
}

/** An error for people: a title, what happened and what to do, and the package's code. */
export class Problem extends Error {
  constructor(title, detail, code) {
    super(detail);
    this.title = title;
    this.code = code;
  }

  static from(error) {
    if (error instanceof Problem) return error;
    if (error instanceof AtlasError) return new Problem(titles[error.code] ?? "Could not read the collection", error.message, error.code);
    return new Problem("Unexpected error", String(error?.message ?? error), "Error");
  }
}

const titles = {
  NotFound: "Not found",
  NotAnAtlasCollection: "Not an ATLAS collection",
  CorruptCollection: "Damaged collection",
  UnsupportedVersion: "Unsupported format version",
  ObjectChanged: "The collection changed on the server",
  TooLarge: "Too large to read at once",
  Io: "Could not read from the server",
};

async function explainUrl(error, url) {
  if (error?.code === "Aborted") return error;
  const data = new URL("data.atlas", url).href;
  const code = error?.code ?? "Error";
  if (code === "NotFound") {
    return new Problem(
      "No collection at this URL",
      `${data} answered 404. Give the URL of a collection's directory: the one that holds data.atlas.`,
      code,
    );
  }
  if (code === "NotAnAtlasCollection" || code === "CorruptCollection" || code === "UnsupportedVersion") {
    return new Problem(titles[code], `${data} is not a readable ATLAS collection: ${error.message}`, code);
  }
  if (!TRANSPORT.has(code)) return Problem.from(error);

  const crossOrigin = url.origin !== location.origin;
  let probe;
  try {
    probe = await fetch(data, { headers: { Range: "bytes=0-15" }, cache: "no-store" });
  } catch {
    // The browser gives no reason for a refused fetch. A no-cors request
    // tells "the host is down" from "the host answers but not to us".
    const reachable = await fetch(data, { mode: "no-cors", cache: "no-store" }).then(() => true, () => false);
    if (reachable && crossOrigin) {
      return new Problem(
        "Blocked by CORS",
        `${url.origin} answers, but not to pages from ${location.origin}: its server must send ` +
          "Access-Control-Allow-Origin, Access-Control-Allow-Headers: Range, If-Match and " +
          "Access-Control-Expose-Headers: Content-Range, Content-Length, ETag.",
        code,
      );
    }
    return new Problem("Server unreachable", `Nothing answered at ${url.origin}. Check the address and that the server is running.`, code);
  } finally {
    await probe?.body?.cancel().catch(() => {});
  }
  if (probe.status === 200) {
    return new Problem(
      "The server ignores Range requests",
      `${url.origin} answered a request for 16 bytes with the whole file (200, not 206). ATLAS reads collections by byte ranges: serve it from a server or bucket with HTTP Range support.`,
      code,
    );
  }
  if (probe.status === 416) {
    return new Problem("The server refuses Range requests", `${data} answered 416 to Range: bytes=0-15.`, code);
  }
  if (probe.status === 206 && !probe.headers.get("Content-Range")) {
    return new Problem(
      "Range headers hidden by CORS",
      `${url.origin} answers ranges but does not expose them to this page: its server must send Access-Control-Expose-Headers: Content-Range, Content-Length, ETag.`,
      code,
    );
  }
  const encoding = probe.headers.get("Content-Encoding");
  if (encoding && encoding !== "identity") {
    return new Problem(
      "Compressed ranges",
      `${data} is served with Content-Encoding: ${encoding}, which changes the bytes of every range. Serve the collection without on-the-fly compression.`,
      code,
    );
  }
  if (probe.status === 206 && crossOrigin) {
    return new Problem(
      "Range blocked by CORS preflight",
      `${url.origin} answers simple requests, but the open's suffix range needs a preflight: its server must answer OPTIONS with Access-Control-Allow-Headers: Range, If-Match. (${error.message})`,
      code,
    );
  }
  return Problem.from(error);
}
