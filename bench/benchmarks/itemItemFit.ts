/**
 * `npm run bench:item-item-fit -- [--scale 1] [--rounds 3] [--baseline DIST]`: the item-item fit alone (no server,
 * no database) on the distinct pairs of bench:recommend's synthetic organisation, as this build fits it and, with
 * `--baseline`, as an older build's `dist` does, alternated, their outputs compared; the kept lists with and
 * without the user-user term; the model's bytes.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { SparseRows } from "../../workers/training/als.js";
import { fitItemItem } from "../../workers/training/itemItem.js";
import { readFlags, POSITIVE, WHOLE } from "../kit/flags.js";
import { median } from "../kit/table.js";
import { ownCpuSeconds as cpuSeconds } from "../kit/proc.js";
import { benchSpec, specLine } from "./recommend/spec.js";
import { syntheticEvents, type SyntheticSpec } from "../kit/synthetic.js";
import { writeFigures } from "../kit/results.js";
import { log } from "../kit/settings.js";
import { runBenchmark } from "../kit/run.js";
import { NOT_RECENT } from "../../workers/training/query.js";
import { QUERY_MAX_ITEMS } from "../../workers/model/itemItem.js";
import { fitUserTop, USER_TOP_MAX_ENTRIES, USER_TOP_PER_USER } from "../../workers/training/userTop.js";
import { NO_USER_USER, USER_USER } from "../../workers/training/userUser.js";

function syntheticPairs(spec: SyntheticSpec): { x: SparseRows; squares: number } {
  const perUser: Set<number>[] = Array.from({ length: spec.users }, () => new Set());
  const number = (id: string) => Number(id.slice(id.indexOf("-") + 1));
  for (const e of syntheticEvents(spec)) perUser[number(e.user_id)]!.add(number(e.item_id));
  const indptr = new Int32Array(spec.users + 1);
  const indices = new Int32Array(perUser.reduce((n, s) => n + s.size, 0));
  let squares = 0;
  perUser.forEach((items, u) => {
    indices.set(Int32Array.from(items).sort(), indptr[u]!);
    indptr[u + 1] = indptr[u]! + items.size;
    squares += items.size ** 2;
  });
  return { x: { rows: spec.users, cols: spec.items, indptr, indices, values: new Float32Array(indices.length).fill(1) }, squares };
}

async function main(): Promise<void> {
  const flags = readFlags({ scale: {}, rounds: {}, baseline: {} });
  const spec = benchSpec(flags.number("scale", 1, POSITIVE));
  const rounds = flags.number("rounds", 3, WHOLE);
  const baseline = flags.text("baseline");
  const fitBefore: typeof fitItemItem | undefined = baseline
    ? ((await import(pathToFileURL(path.resolve(baseline, "workers/training/itemItem.js")).href)) as { fitItemItem: typeof fitItemItem }).fitItemItem
    : undefined;
  log(`${specLine(spec)}: building the pairs`);
  const { x, squares } = syntheticPairs(spec);
  log(`${x.indices.length} distinct pairs, Σ_u d_u² = ${squares}`);
  // CPU seconds beside wall seconds: on the shared machine a niced run may be paused or starved between them.
  const times = { before: [] as number[], now: [] as number[] };
  const cpu = { before: [] as number[], now: [] as number[] };
  let identical = true;
  let last: ReturnType<typeof fitItemItem> | undefined;
  for (let r = 0; r < rounds; r++) {
    const old = fitBefore && timed(() => fitBefore(x), times.before, cpu.before);
    const now = timed(() => fitItemItem(x), times.now, cpu.now);
    if (old)
      identical &&=
        same(old.rows.neighbours, now.rows.neighbours) && same(old.rows.weights, now.rows.weights) && same(old.similar?.slots, now.similar?.slots);
    const before = old ? `before ${times.before[r]!.toFixed(1)} s (CPU ${cpu.before[r]!.toFixed(1)} s), ` : "";
    log(`round ${r + 1}: ${before}now ${times.now[r]!.toFixed(1)} s (CPU ${cpu.now[r]!.toFixed(1)} s)`);
    last = now;
  }
  // The synthetic events bear no order that matters here: every item weighs 1 in its user's query.
  const recency = new Uint16Array(x.indices.length).fill(NOT_RECENT);
  const lists = { itemItem: [] as number[], blended: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    let c = process.cpuUsage();
    fitUserTop(last!.rows, x, recency, QUERY_MAX_ITEMS, USER_TOP_PER_USER, USER_TOP_MAX_ENTRIES, NO_USER_USER);
    lists.itemItem.push(cpuSeconds(c));
    c = process.cpuUsage();
    fitUserTop(last!.rows, x, recency, QUERY_MAX_ITEMS, USER_TOP_PER_USER, USER_TOP_MAX_ENTRIES, USER_USER);
    lists.blended.push(cpuSeconds(c));
    log(
      `kept lists, round ${r + 1}: item-item alone CPU ${lists.itemItem[r]!.toFixed(1)} s, with the user-user term CPU ${lists.blended[r]!.toFixed(1)} s`,
    );
  }
  const pairs = last!.rows.neighbours.length;
  const rowBytes = last!.rows.rowStart.byteLength + last!.rows.neighbours.byteLength + last!.rows.weights.byteLength;
  const listBytes = last!.similar?.slots.byteLength ?? 0;
  const figures = {
    spec,
    pairsIn: x.indices.length,
    squares,
    beforeS: times.before,
    nowS: times.now,
    beforeCpuS: cpu.before,
    nowCpuS: cpu.now,
    medianRatio: median(times.before.map((b, r) => b / times.now[r]!)),
    medianCpuRatio: median(cpu.before.map((b, r) => b / cpu.now[r]!)),
    identical: fitBefore ? identical : null,
    pairsKept: pairs,
    rowBytes,
    listBytes,
    bytesPerItem: (rowBytes + listBytes) / spec.items,
    bytesPerTrainingPair: (rowBytes + listBytes) / x.indices.length,
    keptListsItemItemCpuS: lists.itemItem,
    keptListsBlendedCpuS: lists.blended,
  };
  const against = fitBefore
    ? `before ${times.before.map((s) => s.toFixed(1)).join(", ")} s; now ${times.now.map((s) => s.toFixed(1)).join(", ")} s; ` +
      `median ${figures.medianRatio.toFixed(2)}× faster (CPU time: ${figures.medianCpuRatio.toFixed(2)}×); same rows and lists: ${identical}`
    : `${times.now.map((s) => s.toFixed(1)).join(", ")} s (CPU ${cpu.now.map((s) => s.toFixed(1)).join(", ")} s)`;
  console.log(
    `item-item fit of ${x.indices.length} pairs: ${against}\n` +
      `model: ${pairs} pairs kept, rows ${(rowBytes / 1e6).toFixed(1)} MB + lists ${(listBytes / 1e6).toFixed(1)} MB = ${Math.round(figures.bytesPerItem)} bytes an item, ${figures.bytesPerTrainingPair.toFixed(1)} a training pair\n` +
      `kept lists (CPU s): item-item alone ${lists.itemItem.map((t) => t.toFixed(1)).join(", ")}; with the user-user term ${lists.blended.map((t) => t.toFixed(1)).join(", ")}`,
  );
  writeFigures("item-item-fit", new Date().toISOString(), figures);
}

/** Runs `fit`, adding its wall and CPU seconds to `wall` and `cpu`. */
function timed<T>(fit: () => T, wall: number[], cpu: number[]): T {
  const t = performance.now();
  const c = process.cpuUsage();
  const out = fit();
  wall.push((performance.now() - t) / 1000);
  cpu.push(cpuSeconds(c));
  return out;
}

function same(a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

runBenchmark(main);
