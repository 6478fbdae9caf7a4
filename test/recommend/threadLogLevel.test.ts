import { afterAll, describe, expect, it } from "vitest";
import { syntheticEvents, syntheticItems, type SyntheticSpec } from "../../bench/kit/synthetic.js";
import { call, newOrg } from "../helpers/api.js";
import { eventually, recommend } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

const SPEC: SyntheticSpec = { users: 60, items: 40, events: 1_500, topics: 4, days: 10, seed: 3 };
/** Logged by a recommender thread (workers/recommender/trainingScheduler.ts) at info when a model is in place. */
const THREAD_INFO_LINE = '"msg":"recommender model trained"';

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.cleanup()));
});

const OUTPUT_LAG_MS = 1_000;

/** A server at `level` whose one organisation has a trained model, once the model answers: its output. */
async function outputOnceTrained(level: string): Promise<() => string> {
  const server = await startServer({ env: { LOG_LEVEL: level, RECOMMEND_RETRAIN_S: "1", RATE_LIMIT_MAX: "100000" } });
  servers.push(server);
  const org = await newOrg(server.url);
  expect((await call(server.url, "POST", "/v1/items/upsert", { json: [...syntheticItems(SPEC)], apiKey: org.sk })).status).toBe(202);
  const events = [...syntheticEvents(SPEC)].map((e) => ({ user_id: e.user_id, item_id: e.item_id, event_family: "engagement", event_name: "view" }));
  const sent = await call(server.url, "POST", "/v1/events/ingest", { json: events, apiKey: org.pk });
  expect(sent.status).toBe(202);
  const { value } = await eventually(
    () => recommend(server.url, org, { strategy: "personalized", user_id: events.at(-1)!.user_id }),
    (r) => r.body.data?.mode === "personalized",
    20_000,
  );
  expect(value.body.data.mode, "a model answers").toBe("personalized");
  return server.output;
}

describe("LOG_LEVEL in the recommender threads", () => {
  it("lets their info lines through at info", async () => {
    const output = await outputOnceTrained("info");
    const { value } = await eventually(
      async () => output(),
      (o) => o.includes(THREAD_INFO_LINE),
    );
    expect(value).toContain(THREAD_INFO_LINE);
  }, 60_000);

  it("silences their info lines at warn", async () => {
    const output = await outputOnceTrained("warn");
    // A thread's output reaches the process's through the main thread: give a line written at the swap time to arrive.
    await new Promise((r) => setTimeout(r, OUTPUT_LAG_MS));
    expect(output()).not.toContain(THREAD_INFO_LINE);
  }, 60_000);
});
