/**
 * `npm run bench:first-model -- --data FILE|FOLDER [--users N]`: how soon after its last event a new organisation
 * of real data (what `evaluate` reads) has a model of all of it. Items, then with --users N that many users (the
 * data's, then users without events), then events in arrays of 1,000, through the API; from the last event's 202:
 * the "recommender model trained" line covering every positive pair, and the first `personalized` answer for the
 * last event's user ranked by a model.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { readInteractions, type Interaction } from "../evaluation/csv.js";
import { isGivenSplit, readGivenSplit } from "../evaluation/lightGcnSplit.js";
import { isPositive } from "../evaluation/split.js";
import { readFlags } from "../kit/flags.js";
import { loadInteractions } from "./firstModel/load.js";
import { registerOrg } from "../kit/org.js";
import { withFreshServer } from "../kit/processes.js";
import { postJson } from "../kit/api.js";
import { logLines, waitForLog } from "../kit/serverLog.js";
import { writeFigures } from "../kit/results.js";
import { log } from "../kit/settings.js";
import { runBenchmark } from "../kit/run.js";

const MODEL_TIMEOUT_MS = 10 * 60_000;
const POLL_MS = 100;

/** Asks `personalized` for the user until an answer's first result is ranked by a model; the seconds since `from`. */
async function firstCollaborative(url: string, pk: string, user: string, from: number, until: number): Promise<number | undefined> {
  const body = JSON.stringify({ strategy: "personalized", user_id: user, limit: 20 });
  while (Date.now() < until) {
    const r = await postJson(`${url}/v1/recommend`, pk, body);
    const first = r.status === 200 ? (JSON.parse(r.body) as { data: { results: { reason: string }[] } }).data.results[0] : undefined;
    if (first?.reason === "collaborative") return (Date.now() - from) / 1000;
    await sleep(POLL_MS);
  }
  return undefined;
}

async function main(): Promise<void> {
  const flags = readFlags({ data: {}, users: {} });
  const values = { data: flags.text("data"), users: flags.number("users", 0, { min: 0, integer: true }) };
  if (!values.data) throw new Error("usage: npm run bench:first-model -- --data FILE|FOLDER [--users N]");
  const rows: Interaction[] = isGivenSplit(values.data) ? (await readGivenSplit(values.data)).split.train : await readInteractions(values.data);
  const pairs = new Set(rows.filter(isPositive).map((r) => `${r.user}\u0000${r.item}`)).size;
  const lastUser = rows
    .slice()
    .sort((a, b) => a.atMs - b.atMs)
    .at(-1)!.user;
  await withFreshServer({ LOG_LEVEL: "info" }, async ({ server, url }) => {
    const keys = await registerOrg(url);
    log(`loading ${rows.length} interactions (${pairs} user × item pairs)${values.users > 0 ? `, ${values.users} users upserted first` : ""}`);
    const load = await loadInteractions(url, keys, rows, values.users);
    const lastEventAt = Date.now();
    log(`loaded in ${load.seconds.toFixed(1)} s (${Math.round(load.events / load.seconds)} events/s); waiting for a model of all ${pairs} pairs`);
    const answered = firstCollaborative(url, keys.pk, lastUser, lastEventAt, lastEventAt + MODEL_TIMEOUT_MS);
    const line = await waitForLog(server, "recommender model trained", (l) => Number(l.interactions) >= pairs, MODEL_TIMEOUT_MS);
    // Every model of the organisation, as seconds after the last event: the timeline of the wait.
    const models = logLines(server, "recommender model trained").map((l) => ({
      afterLastEventS: (Date.parse(l.t) - lastEventAt) / 1000,
      interactions: Number(l.interactions),
      ms: Number(l.ms),
      setMs: Number(l.setMs),
    }));
    const figures = {
      data: values.data,
      upsertedUsers: load.users,
      events: load.events,
      pairs,
      loadSeconds: load.seconds,
      modelAfterLastEventS: (Date.parse(line.t) - lastEventAt) / 1000,
      firstCollaborativeAfterLastEventS: await answered,
      models,
      trainingMs: line.ms,
      setMs: line.setMs,
      users: line.users,
      items: line.items,
    };
    console.log(
      `model of all ${pairs} pairs in place ${figures.modelAfterLastEventS.toFixed(1)} s after the last event (training ${line.ms} ms, ` +
        `training set ${line.setMs} ms; load ${load.seconds.toFixed(1)} s); first collaborative answer for the last ` +
        `event's user ${figures.firstCollaborativeAfterLastEventS?.toFixed(1) ?? "never"} s after it`,
    );
    for (const m of models)
      log(`  model of ${m.interactions} interactions at ${m.afterLastEventS.toFixed(1)} s (training ${m.ms} ms, set ${m.setMs} ms)`);
    writeFigures("first-model", new Date().toISOString(), figures);
  });
}

runBenchmark(main);
