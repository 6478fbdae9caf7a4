/**
 * Writes a synthetic organisation's interactions (bench/kit/synthetic.ts: seeded, with planted topics) as the
 * CSV `npm run evaluate` reads, so the evaluation can be tried, and tuned, without real data.
 *   npm run synthetic-csv -- --out FILE [--users 5000] [--items 2000] [--events 200000] [--topics 40]
 *                            [--days 60] [--focus 0.85] [--seed 1]
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { syntheticEvents, type SyntheticSpec } from "../kit/synthetic.js";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    users: { type: "string", default: "5000" },
    items: { type: "string", default: "2000" },
    events: { type: "string", default: "200000" },
    topics: { type: "string", default: "40" },
    days: { type: "string", default: "60" },
    focus: { type: "string", default: "0.85" },
    seed: { type: "string", default: "1" },
  },
});
if (!values.out) {
  console.error("usage: npm run synthetic-csv -- --out FILE [--users N] [--items N] [--events N] [--topics N] [--days N] [--focus X] [--seed N]");
  process.exit(2);
}
const spec: SyntheticSpec = {
  users: Number(values.users),
  items: Number(values.items),
  events: Number(values.events),
  topics: Number(values.topics),
  days: Number(values.days),
  focus: Number(values.focus),
  seed: Number(values.seed),
};

const out = createWriteStream(values.out);
out.write("user_id,item_id,event_name,timestamp\n");
for (const e of syntheticEvents(spec)) {
  // Respect back-pressure: a few hundred thousand lines would otherwise sit in memory at once.
  if (!out.write(`${e.user_id},${e.item_id},${e.event_name},${new Date(e.at).toISOString()}\n`)) await once(out, "drain");
}
out.end();
await once(out, "finish");
console.error(`wrote ${spec.events} events to ${values.out}`);
