import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignVariant } from "../../src/experiments/assignment.js";
import { call, newOrg, type Org } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { eventually, recommend, sendEvents, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;
const MAX = 6;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000", ORG_MAX_EXPERIMENTS: String(MAX) } });
  org = await newOrg(server.url);
  await upsertItems(
    server.url,
    org,
    ["a", "b", "c", "d"].map((item_id) => ({ item_id })),
  );
  await sendEvents(server.url, org, [
    { user: "x", item: "a", name: "purchase" },
    { user: "y", item: "b" },
    { user: "x", item: "c" },
  ]);
});
afterAll(async () => {
  await server?.cleanup();
});

const twoWay = (scenario: string, extra: Record<string, unknown> = {}) => ({
  name: `test on ${scenario}`,
  scenario,
  variants: [
    { name: "A", share: 0.5 },
    { name: "B", share: 0.5, strategy: "trending" },
  ],
  ...extra,
});
const create = (o: Org, body: unknown, auth: { token?: string; apiKey?: string } = { token: o.token }) =>
  call(server.url, "POST", "/v1/experiments", { json: body, ...auth });
const stop = (o: Org, id: string) => call(server.url, "POST", `/v1/experiments/${id}/stop`, { token: o.token });
const served = (id: string) => server.db().query("SELECT * FROM served_recommendations WHERE recommendation_id = $1", [id]);

/** A user id the experiment's hash puts in `variant`. */
function userIn(e: { experiment_id: string; holdout: number; variants: { name: string; share: number }[] }, variant: string, prefix = "u"): string {
  const split = { id: e.experiment_id, holdout: e.holdout, variants: e.variants };
  for (let i = 0; ; i++) if (assignVariant(split, `${prefix}-${i}`) === variant) return `${prefix}-${i}`;
}

describe("POST/GET /v1/experiments and stop", () => {
  it("creates a running experiment (201 with its id), reads it, lists it and stops it, with the dashboard token", async () => {
    const o = await newOrg(server.url);
    const r = await create(o, twoWay("home", { holdout: 0.1 }));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const e = r.body.data;
    expect(e).toMatchObject({ name: "test on home", scenario: "home", status: "running", holdout: 0.1, stopped_at: null });
    expect(e.variants).toEqual(twoWay("home").variants);
    const read = await call(server.url, "GET", `/v1/experiments/${e.experiment_id}`, { token: o.token });
    expect(read.body.data).toEqual(e);
    const list = await call(server.url, "GET", "/v1/experiments", { token: o.token });
    expect(list.body.data.experiments).toEqual([e]);
    const stopped = await stop(o, e.experiment_id);
    expect(stopped.status).toBe(200);
    expect(stopped.body.data).toMatchObject({ status: "stopped", experiment_id: e.experiment_id });
    expect(Date.parse(stopped.body.data.stopped_at)).toBeGreaterThanOrEqual(Date.parse(e.created_at));
    // Stopping again changes nothing.
    expect((await stop(o, e.experiment_id)).body.data).toEqual(stopped.body.data);
  });

  it("takes the secret key, and refuses the publishable key (403 wrong_key_type) and no credentials (401)", async () => {
    const o = await newOrg(server.url);
    const r = await create(o, twoWay("sk"), { apiKey: o.sk });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((await call(server.url, "GET", "/v1/experiments", { apiKey: o.sk })).body.data.experiments).toHaveLength(1);
    expect((await create(o, twoWay("pk"), { apiKey: o.pk })).body.error).toBe("wrong_key_type");
    const none = await call(server.url, "GET", "/v1/experiments");
    expect([none.status, none.body.error]).toEqual([401, "missing_api_key"]);
  });

  it("lets a DEVELOPER create and stop experiments, and refuses a MEMBER (403 forbidden_role), who may still read them and their results", async () => {
    const o = await newOrg(server.url);
    const developer = await memberToken(server, o, "DEVELOPER");
    const r = await create(o, twoWay("dev"), { token: developer });
    expect(r.status).toBe(201);
    const member = await memberToken(server, o, "MEMBER");
    const refused = await create(o, twoWay("member"), { token: member });
    expect([refused.status, refused.body.error]).toEqual([403, "forbidden_role"]);
    const id = r.body.data.experiment_id as string;
    expect((await call(server.url, "POST", `/v1/experiments/${id}/stop`, { token: member })).body.error).toBe("forbidden_role");
    expect((await call(server.url, "GET", "/v1/experiments", { token: member })).body.data.experiments).toMatchObject([{ experiment_id: id }]);
    expect((await call(server.url, "GET", `/v1/experiments/${id}`, { token: member })).body.data.status).toBe("running");
    expect((await call(server.url, "GET", `/v1/analytics/experiments/${r.body.data.experiment_id}`, { token: member })).status).toBe(200);
  });

  it("audits creation and stop with the experiment's id", async () => {
    const o = await newOrg(server.url);
    const id = (await create(o, twoWay("audited"))).body.data.experiment_id;
    await stop(o, id);
    const log = await call(server.url, "GET", "/v1/audit-log?limit=10", { token: o.token });
    const entries = log.body.data.entries.filter((e: { action: string }) => e.action.startsWith("experiment."));
    expect(entries.map((e: { action: string }) => e.action)).toEqual(["experiment.stopped", "experiment.created"]);
    for (const e of entries) expect(e.target).toContain(id);
  });

  it("answers 400 validation_error naming the field for each malformed experiment", async () => {
    const o = await newOrg(server.url);
    const cases: [unknown, string][] = [
      [{ ...twoWay("v"), variants: [{ name: "A", share: 1 }] }, "variants"],
      [{ ...twoWay("v"), variants: Array.from({ length: 6 }, (_, i) => ({ name: `V${i}`, share: 1 / 6 })) }, "variants"],
      [
        {
          ...twoWay("v"),
          variants: [
            { name: "A", share: 0.5 },
            { name: "B", share: 0.4 },
          ],
        },
        "variants: shares must sum to 1",
      ],
      [
        {
          ...twoWay("v"),
          variants: [
            { name: "A", share: 0.5, strategy: "trending" },
            { name: "B", share: 0.5 },
          ],
        },
        "variants[0].strategy",
      ],
      [
        {
          ...twoWay("v"),
          variants: [
            { name: "A", share: 0.5 },
            { name: "A", share: 0.5 },
          ],
        },
        "variants[1].name",
      ],
      [
        {
          ...twoWay("v"),
          variants: [
            { name: "A", share: 0.5 },
            { name: "holdout", share: 0.5 },
          ],
        },
        "variants[1].name",
      ],
      [
        {
          ...twoWay("v"),
          variants: [
            { name: "A", share: 0.5 },
            { name: "B", share: 0.5, limit: 3 },
          ],
        },
        "variants[1]: unknown field(s) 'limit'",
      ],
      [
        {
          ...twoWay("v"),
          variants: [
            { name: "A", share: 0.5 },
            { name: "B", share: 0.5, strategy: "best" },
          ],
        },
        "variants[1].strategy",
      ],
      [
        {
          ...twoWay("v"),
          variants: [
            { name: "A", share: 0 },
            { name: "B", share: 1 },
          ],
        },
        "variants[0].share",
      ],
      [twoWay("v", { holdout: 0.6 }), "holdout"],
      [twoWay("Home Page"), "scenario"],
      [{ ...twoWay("v"), name: "" }, "name"],
      [{ scenario: "v", variants: twoWay("v").variants }, "name: is required"],
    ];
    for (const [body, field] of cases) {
      const r = await create(o, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe("validation_error");
      expect(r.body.message, JSON.stringify(body)).toContain(field);
    }
    // Shares typed as decimals sum to 1 within the tolerance.
    const thirds = (share: number) => [1, 2, 3].map((i) => ({ name: `V${i}`, share }));
    expect((await create(o, { ...twoWay("thirds"), variants: thirds(0.3333) })).status).toBe(400);
    expect((await create(o, { ...twoWay("thirds"), variants: thirds(0.3333333) })).status).toBe(201);
  });

  it("answers 409 conflict for a second running experiment on a scenario, and takes one once the first is stopped", async () => {
    const o = await newOrg(server.url);
    const first = (await create(o, twoWay("pdp"))).body.data.experiment_id;
    const second = await create(o, twoWay("pdp"));
    expect([second.status, second.body.error]).toEqual([409, "conflict"]);
    expect(second.body.message).toContain(first);
    expect((await create(o, twoWay("cart"))).status).toBe(201);
    await stop(o, first);
    expect((await create(o, twoWay("pdp"))).status).toBe(201);
  });

  it(`answers 403 quota_exceeded past ORG_MAX_EXPERIMENTS (${MAX}) experiments of an organisation, stopped ones included`, async () => {
    const o = await newOrg(server.url);
    for (let i = 0; i < MAX; i++) {
      const r = await create(o, twoWay(`q${i}`));
      expect(r.status).toBe(201);
      await stop(o, r.body.data.experiment_id);
    }
    const r = await create(o, twoWay("one-more"));
    expect([r.status, r.body.error]).toEqual([403, "quota_exceeded"]);
    expect(r.body.message).toContain(String(MAX));
  });

  it("answers 404 for an unknown id, an id that is not a UUID, and another organisation's experiment", async () => {
    const o = await newOrg(server.url);
    const theirs = (await create(await newOrg(server.url), twoWay("x"))).body.data.experiment_id;
    const ours = (await create(o, twoWay("x"))).body.data.experiment_id;
    for (const id of [theirs, "not-a-uuid", "0195a3c4-5d6e-4f70-8a9b-0c1d2e3f4a5b"]) {
      for (const [method, path] of [
        ["GET", `/v1/experiments/${id}`],
        ["POST", `/v1/experiments/${id}/stop`],
        ["GET", `/v1/analytics/experiments/${id}`],
      ]) {
        const r = await call(server.url, method!, path!, { token: o.token });
        expect([r.status, r.body.error], path).toEqual([404, "not_found"]);
      }
    }
    expect(
      (await call(server.url, "GET", "/v1/experiments", { token: o.token })).body.data.experiments.map(
        (e: { experiment_id: string }) => e.experiment_id,
      ),
    ).toEqual([ours]);
    // Theirs still runs: stopping through another organisation did nothing.
    expect((await server.db().query("SELECT stopped_at FROM experiments WHERE id = $1", [theirs])).rows[0].stopped_at).toBeNull();
  });
});

describe("recommend under an experiment", () => {
  it("serves each user the variant the hash gives, with the variant's fields, and says so in the answer and the served row", async () => {
    const e = (await create(org, twoWay("home", { holdout: 0.2 }))).body.data;
    for (const variant of ["A", "B", "holdout"]) {
      const user = userIn(e, variant);
      const r = await recommend(server.url, org, { strategy: "personalized", user_id: user, scenario: "home" });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const answer = JSON.stringify({ ...r.body.data, results: undefined });
      expect(r.body.data.experiment, answer).toEqual({ id: e.experiment_id, variant });
      expect(r.body.data.strategy, answer).toBe({ A: "personalized", B: "trending", holdout: "popular" }[variant]);
      const { value } = await eventually(
        () => served(r.body.data.recommendation_id),
        (q) => q.rowCount === 1,
        5000,
      );
      expect(value.rows[0], answer).toMatchObject({
        experiment_id: e.experiment_id,
        variant,
        scenario: "home",
        strategy: r.body.data.strategy,
        user_id: user,
      });
      // Sticky: the same user gets the same variant again.
      expect((await recommend(server.url, org, { strategy: "personalized", user_id: user, scenario: "home" })).body.data.experiment.variant).toBe(
        variant,
      );
    }
  });

  it("leaves requests of other scenarios, and requests without a user_id, out of the experiment", async () => {
    const e = (await create(org, twoWay("search"))).body.data;
    const other = await recommend(server.url, org, { strategy: "popular", user_id: userIn(e, "B"), scenario: "default" });
    expect(other.body.data.experiment).toBeUndefined();
    expect(other.body.data.strategy).toBe("popular");
    const anonymous = await recommend(server.url, org, { strategy: "popular", scenario: "search" });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data.experiment).toBeUndefined();
    const { value } = await eventually(
      () => served(anonymous.body.data.recommendation_id),
      (q) => q.rowCount === 1,
      3000,
    );
    expect(value.rows[0]).toMatchObject({ experiment_id: null, variant: null });
  });

  it("serves the request as sent when the variant's fields do not fit it (an item strategy without a context item)", async () => {
    const e = (
      await create(org, {
        name: "similar items",
        scenario: "pdp",
        variants: [
          { name: "A", share: 0.5 },
          { name: "B", share: 0.5, strategy: "similar" },
        ],
      })
    ).body.data;
    const user = userIn(e, "B");
    const bare = await recommend(server.url, org, { strategy: "popular", user_id: user, scenario: "pdp" });
    expect([bare.status, bare.body.data.strategy, bare.body.data.experiment]).toEqual([200, "popular", undefined]);
    const withItem = await recommend(server.url, org, { strategy: "popular", user_id: user, scenario: "pdp", context_item_id: "a" });
    expect([withItem.body.data.strategy, withItem.body.data.experiment]).toEqual(["similar", { id: e.experiment_id, variant: "B" }]);
  });

  it("stops enrolling at once when the experiment is stopped", async () => {
    const e = (await create(org, twoWay("stopping"))).body.data;
    const user = userIn(e, "B");
    expect((await recommend(server.url, org, { user_id: user, scenario: "stopping" })).body.data.experiment.variant).toBe("B");
    await stop(org, e.experiment_id);
    const after = await recommend(server.url, org, { user_id: user, scenario: "stopping" });
    expect([after.body.data.experiment, after.body.data.strategy]).toEqual([undefined, "personalized"]);
  });

  it("assigns an anonymous visitor by the anonymous id, and after identify by the known id (the variant may change once)", async () => {
    const e = (await create(org, twoWay("identify"))).body.data;
    // A visitor whose anonymous id falls in B and whose account id falls in A.
    const anon = userIn(e, "B", "anon");
    const known = userIn(e, "A", "known");
    const before = await recommend(server.url, org, { user_id: anon, scenario: "identify" });
    expect(before.body.data.experiment.variant).toBe("B");
    await sendEvents(server.url, org, [{ user: known, name: "identify", family: "system", extra: { previous_user_id: anon } }]);
    const after = await recommend(server.url, org, { user_id: known, scenario: "identify" });
    expect(after.body.data.experiment).toEqual({ id: e.experiment_id, variant: "A" });
    // The anonymous id still decides for requests that still send it (another tab not yet told).
    expect((await recommend(server.url, org, { user_id: anon, scenario: "identify" })).body.data.experiment.variant).toBe("B");
  });
});
