// A Cloudflare Worker reading the collection from its R2 binding
// COLLECTIONS (under the key prefix in `?prefix=`), answering what it read as JSON.
import * as atlasWasm from "atlas-wasm";
import { readCollection } from "./read.js";

const { Atlas } = atlasWasm;

export default {
  async fetch(request, env) {
    const prefix = new URL(request.url).searchParams.get("prefix");
    const target = {
      data: Atlas.fromR2(env.COLLECTIONS, `${prefix}/data.atlas`),
      mask: Atlas.fromR2(env.COLLECTIONS, `${prefix}/deleted.mask`),
    };
    try {
      return Response.json(await readCollection(atlasWasm, target));
    } catch (error) {
      return Response.json({ failed: `${error?.code ?? ""} ${error?.stack ?? error}` });
    }
  },
};
