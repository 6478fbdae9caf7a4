import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecommendationClient, RecommendationServiceError } from "recommendation-service/client";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;
let client: RecommendationClient;

beforeAll(async () => {
  server = await startServer();
  org = await newOrg(server.url);
  client = new RecommendationClient({ baseUrl: server.url, publishableKey: org.pk, secretKey: org.sk, userId: "shopper-1", flushIntervalMs: 50 });
});
afterAll(async () => {
  await client?.close();
  await server?.cleanup();
});

async function storedEvent(eventId: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await server.db().query("SELECT * FROM events WHERE event_id = $1", [eventId]);
  return rows[0] as Record<string, unknown> | undefined;
}

describe("the client's typed calls on a real server", () => {
  it("upserts items and users in requests of at most 10,000 and answers how many were accepted", async () => {
    const items = Array.from({ length: 12_345 }, (_, i) => ({
      item_id: `sku-${i}`,
      item_type: "product",
      status: "active" as const,
      attributes: { n: i },
    }));
    expect(await client.upsertItems(items)).toBe(12_345);
    expect(await client.upsertUsers([{ user_id: "shopper-1", status: "active", created_at: "2026-01-01T00:00:00Z" }])).toBe(1);
    const { rows } = await server
      .db()
      .query("SELECT count(*)::int AS n FROM items i JOIN organisations o ON o.seq = i.org WHERE o.id = $1", [org.orgId]);
    expect(rows[0].n).toBe(12_345);
  });

  it("gives each result its recommendation_id, and a later click on that item carries it without the caller copying it", async () => {
    const answer = await client.recommend({ strategy: "new-arrivals", limit: 3 });
    expect(answer.results).toHaveLength(3);
    for (const r of answer.results) expect(r.recommendation_id).toBe(answer.recommendation_id);
    const click = client.track({ event_name: "click", item_id: answer.results[1].item_id });
    expect(click).toMatchObject({ recommendation_id: answer.recommendation_id, event_family: "engagement", user_id: "shopper-1" });
    await client.flush();
    expect(await storedEvent(click.event_id)).toMatchObject({ recommendation_id: answer.recommendation_id, item_id: answer.results[1].item_id });
  });

  it("fills in the current user for the user strategies (recently-viewed shows what was tracked)", async () => {
    client.track({ event_name: "view", item_id: "sku-7" });
    await client.flush();
    const { value } = await eventually(
      () => client.recommend({ strategy: "recently-viewed" }),
      (a) => a.recommended_items.includes("sku-7"),
    );
    expect(value.mode).toBe("personalized");
  });

  it("stores an event whose client clock is days ahead at its time of receipt rather than losing it", async () => {
    const ahead = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const event = client.track({ event_name: "view", item_id: "sku-3", timestamp: ahead });
    await client.flush();
    const stored = await storedEvent(event.event_id);
    expect(Math.abs((stored!.occurred_at as Date).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it("throws the service's error as a typed value: a secret key used to recommend is 403 wrong_key_type", async () => {
    const wrong = new RecommendationClient({ baseUrl: server.url, publishableKey: org.sk });
    const err = await wrong.recommend({ strategy: "popular" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecommendationServiceError);
    expect(err).toMatchObject({ code: "wrong_key_type", status: 403 });
  });

  it("answers a call that needs a key it was not given with a TypeError naming the option", async () => {
    const pkOnly = new RecommendationClient({ baseUrl: server.url, publishableKey: org.pk });
    await expect(pkOnly.upsertItems([{ item_id: "x", item_type: "t", status: "active" }])).rejects.toThrow(/secretKey/);
  });

  it("ingests events directly with client event_ids, so sending the same list twice stores it once", async () => {
    const events = [{ event_name: "purchase", item_id: "sku-1", event_id: crypto.randomUUID() }];
    expect(await client.ingestEvents(events)).toBe(1);
    expect(await client.ingestEvents(events)).toBe(1);
    expect(await storedEvent(events[0].event_id)).toMatchObject({ event_family: "conversion", user_id: "shopper-1" });
  });
});
