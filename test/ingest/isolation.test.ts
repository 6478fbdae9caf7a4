import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let a: Org;
let b: Org;
beforeAll(async () => {
  server = await startServer();
  [a, b] = [await newOrg(server.url), await newOrg(server.url)];
  // Stands in for any record the database refuses although it passed validation.
  await server.db().query("ALTER TABLE items ADD CONSTRAINT test_refuses_poison CHECK (item_id <> 'poison')");
});
afterAll(async () => {
  await server?.cleanup();
});

describe("a request the database refuses", () => {
  it("fails alone: requests sharing its batch, of its own or another organisation, are still stored and acknowledged", async () => {
    const ids = Array.from({ length: 30 }, () => `i-${randomUUID()}`);
    const upsert = (org: Org, itemId: string) =>
      call(server.url, "POST", "/v1/items/upsert", { json: { item_id: itemId, item_type: "product", status: "active" }, apiKey: org.sk });
    const sent = await Promise.all([
      ...ids.slice(0, 15).map((id) => upsert(a, id)),
      upsert(a, "poison"),
      ...ids.slice(15).map((id) => upsert(b, id)),
    ]);
    const poison = sent[15];
    expect(poison.status).toBe(500);
    expect(poison.body.error).toBe("internal_error");
    expect(sent.filter((r) => r !== poison).map((r) => r.status)).toEqual(Array(30).fill(202));
    const stored = await server.db().query("SELECT item_id FROM items WHERE item_id = ANY($1)", [[...ids, "poison"]]);
    expect(stored.rows.map((r) => r.item_id).sort()).toEqual([...ids].sort());
  });
});
