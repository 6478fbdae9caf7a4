import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Small quotas so that a test reaches them in a few requests. */
const QUOTAS = { ORG_MAX_ITEMS: "10", ORG_MAX_USERS: "5", ORG_MAX_ATTRIBUTE_BYTES: "2000" };

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: QUOTAS });
});
afterAll(async () => {
  await server?.cleanup();
});

const item = (id: string, attributes: Record<string, unknown> = {}) => ({ item_id: id, item_type: "product", status: "active", attributes });
const user = (id: string) => ({ user_id: id, status: "active", created_at: "2025-01-01T00:00:00Z" });
const items = (from: number, n: number, attributes: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => item(`i-${from + i}`, attributes));

const upsertItems = (org: Org, json: unknown) => call(server.url, "POST", "/v1/items/upsert", { json, apiKey: org.sk });
const upsertUsers = (org: Org, json: unknown) => call(server.url, "POST", "/v1/users/upsert", { json, apiKey: org.sk });

async function seqOf(org: Org): Promise<number> {
  return (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
}

async function count(org: Org, table: "items" | "users"): Promise<number> {
  return Number((await server.db().query(`SELECT count(*) FROM ${table} WHERE org = $1`, [await seqOf(org)])).rows[0].count);
}

/** Attributes of exactly `bytes` bytes of compact JSON: {"a":"xxx…"}. */
const attributesOf = (bytes: number) => ({ a: "x".repeat(bytes - 8) });

describe("item and user upserts against the organisation's quotas", () => {
  it("answers 403 quota_exceeded naming the limit when items would pass it, and stores nothing of the request", async () => {
    const org = await newOrg(server.url);
    expect((await upsertItems(org, items(0, 8))).status).toBe(202);
    const r = await upsertItems(org, items(8, 3));
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("quota_exceeded");
    expect(r.body.message).toMatch(/^items quota of 10 reached \(organisation has 8, request adds 3\)/);
    expect(await count(org, "items")).toBe(8);
    expect((await upsertItems(org, items(8, 2))).status).toBe(202);
    expect(await count(org, "items")).toBe(10);
    expect((await upsertItems(org, item("one-more"))).body.error).toBe("quota_exceeded");
  });

  it("still replaces stored items at the limit, and counts ids repeated in a request once", async () => {
    const org = await newOrg(server.url);
    expect((await upsertItems(org, items(0, 10))).status).toBe(202);
    const again = await upsertItems(org, [...items(0, 10, { colour: "red" }), item("i-3", { colour: "blue" })]);
    expect(again.status).toBe(202);
    const { rows } = await server.db().query("SELECT attributes FROM items WHERE org = $1 AND item_id = 'i-3'", [await seqOf(org)]);
    expect(rows[0].attributes).toEqual({ colour: "blue" });
    expect(await count(org, "items")).toBe(10);
  });

  it("answers 403 quota_exceeded when users would pass their quota, and replaces stored users at it", async () => {
    const org = await newOrg(server.url);
    expect((await upsertUsers(org, [user("u1"), user("u2"), user("u3"), user("u4")])).status).toBe(202);
    const r = await upsertUsers(org, [user("u5"), user("u6")]);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("quota_exceeded");
    expect(r.body.message).toMatch(/^users quota of 5 reached \(organisation has 4, request adds 2\)/);
    expect(await count(org, "users")).toBe(4);
    expect((await upsertUsers(org, [user("u1"), user("u5")])).status).toBe(202);
    expect((await upsertUsers(org, user("u6"))).status).toBe(403);
    expect((await upsertUsers(org, user("u2"))).status).toBe(202);
  });

  it("answers 403 quota_exceeded when items' attribute bytes would pass their quota, and lets an item shrink at it", async () => {
    const org = await newOrg(server.url);
    expect((await upsertItems(org, [item("a", attributesOf(900)), item("b", attributesOf(900))])).status).toBe(202);
    const r = await upsertItems(org, item("c", attributesOf(300)));
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("quota_exceeded");
    expect(r.body.message).toMatch(/^attribute bytes quota of 2000 reached \(organisation has 1800, request adds 300\)/);
    // Growing a stored item past the quota counts only the growth; shrinking one makes room for another.
    expect((await upsertItems(org, item("a", attributesOf(1201)))).status).toBe(403);
    expect((await upsertItems(org, [item("a", attributesOf(100)), item("c", attributesOf(900))])).status).toBe(202);
    const usage = await server.db().query("SELECT records, attribute_bytes FROM org_usage WHERE org = $1 AND kind = 'item'", [await seqOf(org)]);
    expect(usage.rows[0]).toEqual({ records: "3", attribute_bytes: "1900" });
  });

  it("counts attributes as stored, so numbers written short in the request count at their full length", async () => {
    const org = await newOrg(server.url);
    // 100 × `1e20` is 500 bytes of the body and 2,100 bytes of stored JSON (21 digits each).
    const raw = JSON.stringify(item("e")).replace('"attributes":{}', `"attributes":{"n":[${Array(100).fill("1e20").join(",")}]}`);
    const r = await call(server.url, "POST", "/v1/items/upsert", { raw, contentType: "application/json", apiKey: org.sk });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/^attribute bytes quota of 2000 reached \(organisation has 0, request adds 2207\)/);
    expect(await count(org, "items")).toBe(0);
  });

  it("leaves a second organisation unaffected by the first's full quota", async () => {
    const full = await newOrg(server.url);
    const other = await newOrg(server.url);
    expect((await upsertItems(full, items(0, 10))).status).toBe(202);
    expect((await upsertItems(full, item("x"))).status).toBe(403);
    expect((await upsertItems(other, items(0, 10))).status).toBe(202);
    expect(await count(other, "items")).toBe(10);
  });

  it("applies an organisation's own quota over the setting", async () => {
    const org = await newOrg(server.url);
    await server.db().query("UPDATE organisations SET max_items = 15 WHERE id = $1", [org.orgId]);
    expect((await upsertItems(org, items(0, 12))).status).toBe(202);
    const r = await upsertItems(org, items(12, 4));
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/^items quota of 15 reached/);
  });

  it("applies a raised or lowered own quota at once to an organisation already writing", async () => {
    const org = await newOrg(server.url);
    expect((await upsertItems(org, items(0, 10))).status).toBe(202);
    expect((await upsertItems(org, items(10, 2))).status).toBe(403);
    await server.db().query("UPDATE organisations SET max_items = 12 WHERE id = $1", [org.orgId]);
    expect((await upsertItems(org, items(10, 2))).status).toBe(202);
    await server.db().query("UPDATE organisations SET max_items = 3 WHERE id = $1", [org.orgId]);
    const r = await upsertItems(org, item("one-more"));
    expect([r.status, r.body.message]).toEqual([403, expect.stringMatching(/^items quota of 3 reached \(organisation has 12, request adds 1\)/)]);
    expect((await upsertItems(org, item("i-0", { colour: "green" }))).status).toBe(202);
  });

  it("refuses only the request past the quota among concurrent ones, whatever batch they share", async () => {
    const org = await newOrg(server.url);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, k) => upsertItems(org, items(k * 2, 2))));
    const accepted = answers.filter((a) => a.status === 202).length;
    expect(answers.filter((a) => a.status === 403).every((a) => a.body.error === "quota_exceeded")).toBe(true);
    expect(accepted).toBe(5);
    expect(await count(org, "items")).toBe(10);
  });
});

describe("bulk uploads against the organisation's quotas", () => {
  const upload = (org: Org, kind: string, csv: string) =>
    call(server.url, "POST", `/v1/upload/${kind}`, { token: org.token, raw: csv, contentType: "text/csv" });

  it("rejects the rows past the items quota with its message, and keeps storing the rows that replace stored items", async () => {
    const org = await newOrg(server.url);
    expect((await upsertItems(org, items(0, 3))).status).toBe(202);
    const rows = Array.from({ length: 14 }, (_, i) => `i-${i},product,active,red`);
    const r = await upload(org, "items", ["item_id,item_type,status,colour", ...rows, "i-0,product,active,blue"].join("\n") + "\n");
    expect(r.status).toBe(202);
    expect(r.body.data.accepted).toBe(11);
    expect(r.body.data.rejected).toBe(4);
    expect(r.body.data.errors).toEqual(
      [12, 13, 14, 15].map((line) => ({ line, message: "items quota of 10 reached (organisation has 10, row adds 1)" })),
    );
    expect(await count(org, "items")).toBe(10);
    const { rows: stored } = await server.db().query("SELECT attributes FROM items WHERE org = $1 AND item_id = 'i-0'", [await seqOf(org)]);
    expect(stored[0].attributes).toEqual({ colour: "blue" });
  });

  it("rejects the users past the users quota", async () => {
    const org = await newOrg(server.url);
    const rows = Array.from({ length: 7 }, (_, i) => `u-${i},active,2025-01-01T00:00:00Z`);
    const r = await upload(org, "users", ["user_id,status,created_at", ...rows].join("\n") + "\n");
    expect(r.status).toBe(202);
    expect([r.body.data.accepted, r.body.data.rejected]).toEqual([5, 2]);
    expect(r.body.data.errors[0].message).toBe("users quota of 5 reached (organisation has 5, row adds 1)");
    expect(await count(org, "users")).toBe(5);
  });

  it("rejects the rows past the attribute bytes quota", async () => {
    const org = await newOrg(server.url);
    // {"note":"<600 x>"} is 611 bytes: three fit in 2,000, the fourth does not; a small one still does.
    const rows = [1, 2, 3, 4].map((i) => `big-${i},product,active,${"x".repeat(600)}`);
    const r = await upload(org, "items", ["item_id,item_type,status,note", ...rows, "small,product,active,y"].join("\n") + "\n");
    expect(r.status).toBe(202);
    expect([r.body.data.accepted, r.body.data.rejected]).toEqual([4, 1]);
    expect(r.body.data.errors).toEqual([{ line: 5, message: "attribute bytes quota of 2000 reached (organisation has 1833, row adds 611)" }]);
  });
});
