/**
 * `npm run bench:first-model -- --data FILE|FOLDER [--users N]`: how soon after its last event a new organisation
 * of real data (what `evaluate` reads) has a model of all of it. Items, then with --users N that many users (the
 * data's, then users without events), then events in arrays of 1,000, through the API; from the last event's 202:
 * the "recommender model trained" line covering every positive pair, and the first `personalized` answer for the
 * last event's user ranked by a model.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { readInteractions, type Interaction } from "../evaluation/csv.js";
import { isGivenSplit, readGivenSplit } from "../evaluation/lightGcnSplit.js";
import { isPositive } from "../evaluation/split.js";
import { readFlags } from "../kit/flags.js";
import { registerOrg } from "../kit/org.js";
import { withFreshServer } from "../kit/processes.js";
import { postJson, sendInArrays } from "../kit/api.js";
import { logLines, waitForLog } from "../kit/serverLog.js";
import { writeFigures } from "../kit/results.js";
import { log } from "../kit/settings.js";
import { runBenchmark } from "../kit/run.js";

const MODEL_TIMEOUT_MS = 10 * 60_000;
const POLL_MS = 100;
const CATALOG_CHUNK = 10_000;
const USERS_SINCE = "2000-01-01T00:00:00.000Z";
const EVENT_CHUNK = 1_000;
const IN_FLIGHT = 8;

/**
 * The file's items (upserted active, secret key), then, when `upsertUsers` is given, that many users (the file's,
 * then made-up ones who never have an event: a shop that loads its customers before their history), then the
 * interactions as events in time order (publishable key).
 */
async function loadInteractions(baseUrl: string, keys: { sk: string; pk: string }, rows: Interaction[], upsertUsers = 0) {
  const items = [...new Set(rows.map((r) => r.item).filter((i) => i !== ""))];
  const catalog = { size: CATALOG_CHUNK, inFlight: IN_FLIGHT };
  await sendInArrays(`${baseUrl}/v1/items/upsert`, keys.sk, items, {
    ...catalog,
    wire: (item_id) => ({ item_id, item_type: "item", status: "active" }),
  });
  const users = upsertUsers > 0 ? [...new Set(rows.map((r) => r.user))] : [];
  for (let k = 0; users.length < upsertUsers; k++) users.push(`idle-${k}`);
  await sendInArrays(`${baseUrl}/v1/users/upsert`, keys.sk, users, {
    ...catalog,
    wire: (user_id) => ({ user_id, status: "active", created_at: USERS_SINCE }),
  });
  const ordered = rows.slice().sort((a, b) => a.atMs - b.atMs);
  const started = performance.now();
  await sendInArrays(`${baseUrl}/v1/events/ingest`, keys.pk, ordered, {
    size: EVENT_CHUNK,
    inFlight: IN_FLIGHT,
    wire: (r) => ({
      user_id: r.user,
      item_id: r.item || null,
      event_family: r.family,
      event_name: r.name,
      event_id: randomUUID(),
      timestamp: new Date(r.atMs).toISOString(),
    }),
  });
  return { items: items.length, users: users.length, events: ordered.length, seconds: (performance.now() - started) / 1000 };
}

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
