// CPU of one window read in wasm, by block size: what a Worker's CPU limit
// sees. A warm instance (every path run before the clock, as in an isolate
// that has served requests) reads from memory, so the numbers are CPU alone.
//
//   node window_cpu.mjs NAME=DIR [NAME=DIR ...]
//
// Prints a table of median CPU ms (process.cpuUsage) over 7 handles each:
// the open, the segment's open, a 10×20 window, a window in another block.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const entry = process.env.ATLAS_WASM_ENTRY ?? new URL("../../js/dist/node.js", import.meta.url).href;
const { Atlas } = await import(entry.startsWith("file:") ? entry : pathToFileURL(entry).href);
const copies = process.argv.slice(2).map((arg) => {
  const [name, dir] = arg.split("=");
  return { name, bytes: new Uint8Array(readFileSync(`${dir}/data.atlas`)) };
});
const cpuMs = async (run) => {
  const before = process.cpuUsage();
  await run();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
};
const open = (bytes) => Atlas.open({ data: Atlas.fromBytes(bytes) }, { decodeWorkers: 0 });
const window = (atlas, i) =>
  atlas.dataset(`day_${String(i).padStart(4, "0")}.nc`).read("temperature", { start: [40, 85], shape: [10, 20] });
const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];

for (let round = 0; round < 3; round++) {
  for (const { bytes } of copies) {
    const atlas = await open(bytes);
    await window(atlas, 7 + round);
    await atlas.close();
  }
}
const lines = ["| block size | open | segment open | window | window in another block |", "|---|---:|---:|---:|---:|"];
for (const { name, bytes } of copies) {
  const cells = [[], [], [], []];
  for (let round = 0; round < 7; round++) {
    let atlas;
    cells[0].push(await cpuMs(async () => (atlas = await open(bytes))));
    cells[1].push(await cpuMs(() => atlas.dataset("day_0000.nc").layout("temperature")));
    cells[2].push(await cpuMs(() => window(atlas, 100 + round * 50)));
    cells[3].push(await cpuMs(() => window(atlas, 600 + round * 50)));
    await atlas.close();
  }
  lines.push(`| ${name} | ${cells.map((c) => median(c).toFixed(1)).join(" | ")} |`);
}
console.log(lines.join("\n"));
process.exit(0);
