import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, viewEvent, type Org } from "./helpers/api.js";
import { startServer, type TestServer } from "./helpers/server.js";

let server: TestServer;
let a: Org;
let b: Org;
beforeAll(async () => {
  server = await startServer();
  [a, b] = [await newOrg(server.url), await newOrg(server.url)];
});
afterAll(async () => {
  await server?.cleanup();
});

const orgSeq = async (org: Org) => (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;

describe("tenant isolation", () => {
  it("keeps the same item_id of two organisations apart: one's upsert never changes the other's item", async () => {
    const put = (org: Org, status: string, price: number) =>
      call(server.url, "POST", "/v1/items/upsert", {
        json: { item_id: "shared", item_type: "product", status, attributes: { price } },
        apiKey: org.sk,
      });
    expect((await put(a, "active", 1)).status).toBe(202);
    expect((await put(b, "inactive", 2)).status).toBe(202);
    const rows = (await server.db().query("SELECT org, status, attributes FROM items WHERE item_id = 'shared' ORDER BY org")).rows;
    expect(rows).toEqual([
      { org: await orgSeq(a), status: "active", attributes: { price: 1 } },
      { org: await orgSeq(b), status: "inactive", attributes: { price: 2 } },
    ]);
  });

  it("deduplicates event_id per organisation: the same id sent by two organisations is stored for each", async () => {
    const e = viewEvent("someone", "shared");
    expect((await call(server.url, "POST", "/v1/events/ingest", { json: e, apiKey: a.pk })).status).toBe(202);
    expect((await call(server.url, "POST", "/v1/events/ingest", { json: e, apiKey: b.pk })).status).toBe(202);
    const { rows } = await server.db().query("SELECT org FROM events WHERE event_id = $1 ORDER BY org", [e.event_id]);
    expect(rows.map((r) => r.org)).toEqual([await orgSeq(a), await orgSeq(b)]);
  });

  it("files every record under the organisation of the key that sent it, whatever the body says", async () => {
    const r = await call(server.url, "POST", "/v1/events/ingest", { json: { ...viewEvent("u", "i"), org: await orgSeq(b) }, apiKey: a.pk });
    expect(r.status).toBe(400); // unknown field: a body cannot name a tenant
  });

  it("shows an organisation only its own key pairs and never lets it revoke another's", async () => {
    const list = await call(server.url, "GET", "/v1/keys", { token: b.token });
    expect(list.body.data.key_pairs.map((k: { key_pair_id: string }) => k.key_pair_id)).toEqual([b.keyPairId]);
    expect((await call(server.url, "POST", `/v1/keys/${a.keyPairId}/revoke`, { token: b.token })).status).toBe(404);
    expect((await call(server.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: a.pk })).status).toBe(202);
  });
});
