/**
 * `npm run bench:first-model -- --data FILE`: how soon after its last event a new organisation of real data has a
 * model trained on all of it. Loads the file (MovieLens ratings.csv, or the interactions CSV `evaluate` reads)
 * into a fresh server through the API (items, then events in arrays of 1,000), and waits for the training thread's
 * "recommender model trained" line whose interactions cover every positive user × item pair of the file.
 */
import { parseArgs } from "node:util";
import { readInteractions } from "./lib/evaluation/csv.js";
import { isPositive } from "./lib/evaluation/split.js";
import { prepareStorage } from "./lib/database.js";
import { loadInteractions } from "./lib/firstModel/load.js";
import { registerOrg } from "./lib/org.js";
import { startServer, stopChild } from "./lib/processes.js";
import { waitForLog } from "./lib/recommend/serverLog.js";
import { writeFigures } from "./lib/results.js";
import { log } from "./lib/settings.js";

const MODEL_TIMEOUT_MS = 10 * 60_000;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: "string" } } });
  if (!values.data) throw new Error("usage: npm run bench:first-model -- --data FILE");
  const rows = await readInteractions(values.data);
  const pairs = new Set(rows.filter(isPositive).map((r) => `${r.user}\u0000${r.item}`)).size;
  const storage = await prepareStorage();
  const { server, url } = await startServer(storage, { LOG_LEVEL: "info" });
  try {
    const keys = await registerOrg(url);
    log(`loading ${rows.length} interactions (${pairs} user × item pairs)`);
    const load = await loadInteractions(url, keys, rows);
    const lastEventAt = Date.now();
    log(`loaded in ${load.seconds.toFixed(1)} s (${Math.round(load.events / load.seconds)} events/s); waiting for a model of all ${pairs} pairs`);
    const line = await waitForLog(server, "recommender model trained", (l) => Number(l.interactions) >= pairs, MODEL_TIMEOUT_MS);
    const figures = {
      data: values.data,
      events: load.events,
      pairs,
      loadSeconds: load.seconds,
      modelAfterLastEventS: (Date.parse(line.t) - lastEventAt) / 1000,
      trainingMs: line.ms,
      users: line.users,
      items: line.items,
    };
    console.log(
      `model of all ${pairs} pairs in place ${figures.modelAfterLastEventS.toFixed(1)} s after the last event (training ${line.ms} ms; load ${load.seconds.toFixed(1)} s)`,
    );
    writeFigures("first-model", new Date().toISOString(), figures);
  } finally {
    await stopChild(server);
    await storage.release();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
