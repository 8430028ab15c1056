/**
 * What a decode worker does, whatever the runtime: the first message brings
 * the compiled decode module (answered with `{ready: true}` once instantiated), every
 * later one a block to decode with `decodeBlock` of the worker's own
 * instance. Answers carry the job's id.
 */
import { decodeBlock, initSync } from "./atlas_decode.js";

export function serve(receive, send) {
  receive((message) => {
    if (message.module) {
      initSync({ module: message.module });
      send({ ready: true });
      return;
    }
    const { id, codec, bytes, uncompressedSize, wanted } = message;
    try {
      // A view of the module's memory: copied into a buffer that can be transferred.
      const out = decodeBlock(codec, bytes, uncompressedSize, wanted ?? uncompressedSize).slice();
      send({ id, bytes: out }, [out.buffer]);
    } catch (error) {
      send({ id, error: { message: String(error?.message ?? error), code: error?.code ?? "Io" } });
    }
  });
}
