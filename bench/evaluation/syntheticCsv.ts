/**
 * Writes a synthetic organisation's interactions (bench/kit/synthetic.ts: seeded, with planted topics) as the
 * CSV `npm run evaluate` reads, so the evaluation can be tried, and tuned, without real data.
 *   npm run synthetic-csv -- --out FILE [--users 5000] [--items 2000] [--events 200000] [--topics 40]
 *                            [--days 60] [--focus 0.85] [--seed 1]
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { readFlags, WHOLE } from "../kit/flags.js";
import { syntheticEvents, type SyntheticSpec } from "../kit/synthetic.js";

const flags = readFlags({ out: {}, users: {}, items: {}, events: {}, topics: {}, days: {}, focus: {}, seed: {} });
const out = flags.text("out");
if (!out) {
  console.error("usage: npm run synthetic-csv -- --out FILE [--users N] [--items N] [--events N] [--topics N] [--days N] [--focus X] [--seed N]");
  process.exit(2);
}
const spec: SyntheticSpec = {
  users: flags.number("users", 5000, WHOLE),
  items: flags.number("items", 2000, WHOLE),
  events: flags.number("events", 200_000, WHOLE),
  topics: flags.number("topics", 40, WHOLE),
  days: flags.number("days", 60, WHOLE),
  focus: flags.number("focus", 0.85, { min: 0, max: 1 }),
  seed: flags.number("seed", 1, { integer: true }),
};

const file = createWriteStream(out);
file.write("user_id,item_id,event_name,timestamp\n");
for (const e of syntheticEvents(spec)) {
  // Respect back-pressure: a few hundred thousand lines would otherwise sit in memory at once.
  if (!file.write(`${e.user_id},${e.item_id},${e.event_name},${new Date(e.at).toISOString()}\n`)) await once(file, "drain");
}
file.end();
await once(file, "finish");
console.error(`wrote ${spec.events} events to ${out}`);
