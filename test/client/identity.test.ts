import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecommendationClient, RecommendationServiceError } from "recommendation-service/client";
import { newOrg, type Org } from "../helpers/api.js";
import { userHash, verifyIdentities } from "../helpers/identity.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** The SDK's part of identity verification: the site's server gives it the user's hash, and it sends it. */
let server: TestServer;
let org: Org;
let secret: string;
const clients: RecommendationClient[] = [];

beforeAll(async () => {
  server = await startServer();
  org = await newOrg(server.url);
  secret = await verifyIdentities(server.url, org);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.cleanup();
});

/** A client whose requests' paths and bodies are kept, and whose dropped events are noted. */
function recordingClient(options: { userId?: string; userHash?: string } = {}) {
  const sent: Array<{ path: string; body: unknown }> = [];
  const dropped: string[] = [];
  const client = new RecommendationClient({
    baseUrl: server.url,
    publishableKey: org.pk,
    flushIntervalMs: 50,
    ...options,
    fetch: (input, init) => {
      sent.push({ path: new URL(String(input)).pathname, body: JSON.parse(String(init?.body)) });
      return fetch(input, init);
    },
    onError: (err) => dropped.push(err.code),
  });
  clients.push(client);
  return { client, sent, dropped };
}

const identifiesSent = (sent: Array<{ path: string; body: unknown }>) =>
  sent.flatMap((s) => (s.path === "/v1/events/ingest" ? [s.body].flat() : [])).filter((e) => (e as { event_name: string }).event_name === "identify");

describe("the client with identity verification", () => {
  it("sends identify()'s hash with the identify event and with recommend calls for the signed-in user, and the server takes both", async () => {
    const { client, sent, dropped } = recordingClient();
    client.track({ event_name: "view", item_id: "i1" });
    const hash = userHash(secret, "u-1");
    client.identify("u-1", hash);
    await client.flush();
    expect(dropped).toEqual([]);
    expect(identifiesSent(sent)).toEqual([
      expect.objectContaining({ user_id: "u-1", user_hash: hash, previous_user_id: expect.stringMatching(/^anon-/) }),
    ]);
    const answer = await client.recommend({ strategy: "buy-again" });
    expect(answer.strategy).toBe("buy-again");
    expect(sent.at(-1)).toEqual({ path: "/v1/recommend", body: { strategy: "buy-again", user_id: "u-1", user_hash: hash } });
  });

  it("sends the userHash option with recommend calls for its userId, and none for another user or after reset()", async () => {
    const hash = userHash(secret, "u-2");
    const { client, sent } = recordingClient({ userId: "u-2", userHash: hash });
    await client.recommend({ strategy: "recently-viewed" });
    expect(sent.at(-1)?.body).toEqual({ strategy: "recently-viewed", user_id: "u-2", user_hash: hash });
    await expect(client.recommend({ strategy: "recently-viewed", user_id: "u-3" })).rejects.toMatchObject({ status: 403, code: "unverified_user" });
    expect(sent.at(-1)?.body).toEqual({ strategy: "recently-viewed", user_id: "u-3" });
    client.reset();
    await client.recommend({ strategy: "recently-viewed" });
    expect(sent.at(-1)?.body).toEqual({ strategy: "recently-viewed", user_id: client.userId });
    expect(client.userId).toMatch(/^anon-/);
  });

  it("has its identify refused 403 unverified_user without the hash, and says so", async () => {
    const { client, dropped } = recordingClient();
    client.identify("u-4");
    await expect(client.flush()).rejects.toBeInstanceOf(RecommendationServiceError);
    expect(dropped).toEqual(["unverified_user"]);
    await expect(client.recommend({ strategy: "buy-again" })).rejects.toMatchObject({ status: 403, code: "unverified_user" });
  });
});
