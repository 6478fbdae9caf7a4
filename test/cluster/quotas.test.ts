import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one PostgreSQL: each holds its own view of an organisation's usage. */
const env = { CLUSTER: "1", ORG_MAX_ITEMS: "50", ORG_MAX_ATTRIBUTE_BYTES: "5000" };

let p1: TestServer;
let p2: TestServer;
beforeAll(async () => {
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env });
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

const upsert = (p: TestServer, org: Org, json: unknown) => call(p.url, "POST", "/v1/items/upsert", { apiKey: org.sk, json });
const item = (id: string, attributes: Record<string, unknown> = {}) => ({ item_id: id, item_type: "product", status: "active", attributes });

async function stored(org: Org): Promise<{ items: number; bytes: number }> {
  const { rows } = await p1
    .db()
    .query(
      "SELECT count(*)::int AS items, coalesce(sum(attribute_bytes), 0)::int AS bytes FROM items WHERE org = (SELECT seq FROM organisations WHERE id = $1)",
      [org.orgId],
    );
  return rows[0];
}

describe("quotas across processes (CLUSTER=1)", () => {
  it("never stores past an organisation's items quota while two processes take its requests at once", async () => {
    const org = await newOrg(p1.url);
    // Each process reads the usage once, then neither hears of the other's commits but through the database.
    expect((await upsert(p1, org, item("warm-1"))).status).toBe(202);
    expect((await upsert(p2, org, item("warm-2"))).status).toBe(202);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, k) =>
        upsert(
          k % 2 === 0 ? p1 : p2,
          org,
          [0, 1, 2].map((j) => item(`n-${k}-${j}`)),
        ),
      ),
    );
    for (const a of answers) {
      expect([202, 403]).toContain(a.status);
      if (a.status === 403) expect(a.body.error).toBe("quota_exceeded");
    }
    const accepted = answers.filter((a) => a.status === 202).length;
    const { items } = await stored(org);
    expect(items).toBe(2 + 3 * accepted);
    expect(items).toBeLessThanOrEqual(50);
    expect(items).toBeGreaterThan(47);
  });

  it("refuses only the full organisation's requests when another process filled its quota unseen, not those sharing their batch", async () => {
    const full = await newOrg(p1.url);
    const other = await newOrg(p1.url);
    expect((await upsert(p1, full, item("seen-by-p1"))).status).toBe(202);
    expect((await upsert(p1, other, item("seen-by-p1"))).status).toBe(202);
    // p1 still holds 1 of 50 for `full` (it reads the usage again after 5 s): p2 takes the other 49.
    expect(
      (
        await upsert(
          p2,
          full,
          Array.from({ length: 49 }, (_, i) => item(`p2-${i}`)),
        )
      ).status,
    ).toBe(202);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, k) => upsert(p1, k % 2 === 0 ? full : other, item(`late-${k}`)).then((r) => ({ k, r }))),
    );
    for (const { k, r } of answers) {
      if (k % 2 === 0) expect([r.status, r.body.error]).toEqual([403, "quota_exceeded"]);
      else expect(r.status).toBe(202);
    }
    expect((await stored(full)).items).toBe(50);
    expect((await stored(other)).items).toBe(11);
  });

  it("never stores past an organisation's attribute bytes quota while two processes take its requests at once", async () => {
    const org = await newOrg(p1.url);
    expect((await upsert(p1, org, item("warm-1"))).status).toBe(202);
    expect((await upsert(p2, org, item("warm-2"))).status).toBe(202);
    // {"note":"<92 x>"} is 103 bytes; warm items hold {} (2 bytes each).
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, k) => upsert(k % 2 === 0 ? p1 : p2, org, item(`n-${k}`, { note: "x".repeat(92) }))),
    );
    for (const a of answers) expect([202, 403]).toContain(a.status);
    const accepted = answers.filter((a) => a.status === 202).length;
    const { bytes } = await stored(org);
    expect(bytes).toBe(4 + 103 * accepted);
    expect(bytes).toBeLessThanOrEqual(5000);
    expect(accepted).toBe(48);
  });
});
