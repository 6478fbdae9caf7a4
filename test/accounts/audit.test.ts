import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

async function storedCount(org: Org): Promise<number> {
  const seq = (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
  return (await server.db().query("SELECT count(*)::int AS n FROM items WHERE org = $1", [seq])).rows[0].n;
}

/** Server connections waiting for the lock on key_pairs: each holds one of the server's pool connections. */
async function waitingOnKeyPairs(): Promise<number> {
  const { rows } = await server
    .db()
    .query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'recsvc' AND wait_event_type = 'Lock' AND query LIKE '%key_pairs%'",
    );
  return rows[0].n;
}

describe("an upload's audit entry", () => {
  it("is written, and the upload answered 202, when the database pool has no free connection for longer than its connect timeout", async () => {
    const org = await newOrg(server.url);
    const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `busy-${from + i},product,active\n`).join("");
    const TOTAL = 30_000;
    let sendRest!: () => void;
    const restMayGo = new Promise<void>((r) => (sendRest = r));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode("item_id,item_type,status\n" + rows(0, 20_000)));
        await restMayGo;
        controller.enqueue(new TextEncoder().encode(rows(20_000, TOTAL)));
        controller.close();
      },
    });
    const answer = call(server.url, "POST", "/v1/upload/items", { token: org.token, raw: body, contentType: "text/csv" });
    // Rows are committing: the upload is past its own queries (account, organisation).
    expect(
      (
        await eventually(
          () => storedCount(org),
          (n) => n > 0,
          30_000,
        )
      ).value,
    ).toBeGreaterThan(0);

    // Every pool connection held: requests that read key_pairs wait on a lock the test holds.
    const locker = await server.db().connect();
    const blocked: Array<Promise<unknown>> = [];
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE key_pairs IN ACCESS EXCLUSIVE MODE");
      for (let i = 0; i < 12; i++) blocked.push(call(server.url, "GET", "/v1/keys", { token: org.token }));
      expect((await eventually(waitingOnKeyPairs, (n) => n >= 8, 20_000)).value).toBeGreaterThanOrEqual(8);

      // The rest of the body: its rows commit (the writers have connections of their own), then the audit entry
      // finds no free connection, for longer than the pool's 2 s connect timeout.
      sendRest();
      expect(
        (
          await eventually(
            () => storedCount(org),
            (n) => n === TOTAL,
            30_000,
          )
        ).value,
      ).toBe(TOTAL);
      await sleep(3500);
    } finally {
      await locker.query("COMMIT");
      locker.release();
    }

    const r = await answer;
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.data).toEqual({ accepted: TOTAL, rejected: 0, errors: [] });
    await Promise.all(blocked);
    const log = await call(server.url, "GET", "/v1/audit-log?limit=50", { token: org.token });
    expect(log.body.data.entries.find((e: { action: string }) => e.action === "upload.items")).toMatchObject({
      action: "upload.items",
      target: `csv: ${TOTAL} stored, 0 rejected`,
    });
  }, 90_000);
});
