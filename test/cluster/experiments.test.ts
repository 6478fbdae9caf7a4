import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignVariant } from "../../src/experiments/assignment.js";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one PostgreSQL: an experiment started or stopped through one applies in the other. */
let p1: TestServer;
let p2: TestServer;
let org: Org;

beforeAll(async () => {
  p1 = await startServer({ env: { CLUSTER: "1" } });
  p2 = await startServer({ reuse: p1, env: { CLUSTER: "1" } });
  org = await newOrg(p1.url);
  await upsertItems(
    p1.url,
    org,
    ["a", "b"].map((item_id) => ({ item_id })),
  );
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

describe("experiments across processes with CLUSTER=1", () => {
  it("enrols the other process's requests within about a second of the start, in the same variant, and stops them as fast", async () => {
    const r = await call(p1.url, "POST", "/v1/experiments", {
      token: org.token,
      json: {
        name: "across",
        scenario: "home",
        variants: [
          { name: "A", share: 0.5 },
          { name: "B", share: 0.5, strategy: "trending" },
        ],
      },
    });
    expect(r.status).toBe(201);
    const e = r.body.data;
    const experimentIn = async (p: TestServer, user: string) =>
      (await recommend(p.url, org, { user_id: user, scenario: "home" })).body.data.experiment;
    const started = await eventually(
      () => experimentIn(p2, "visitor-1"),
      (x) => x !== undefined,
      5000,
    );
    expect(started.value).toEqual({
      id: e.experiment_id,
      variant: assignVariant({ id: e.experiment_id, holdout: 0, variants: e.variants }, "visitor-1"),
    });
    expect(started.ms).toBeLessThan(1500);
    // Both processes assign every user alike.
    for (let i = 0; i < 20; i++) expect(await experimentIn(p1, `visitor-${i}`)).toEqual(await experimentIn(p2, `visitor-${i}`));

    expect((await call(p2.url, "POST", `/v1/experiments/${e.experiment_id}/stop`, { token: org.token })).status).toBe(200);
    const stopped = await eventually(
      () => experimentIn(p1, "visitor-1"),
      (x) => x === undefined,
      5000,
    );
    expect(stopped.value).toBeUndefined();
    expect(stopped.ms).toBeLessThan(1500);
  });
});
