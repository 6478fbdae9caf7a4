import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { BatchNotifier } from "../../src/cluster/batchNotifier.js";
import { BATCH_CHANNEL } from "../../src/wire/batchLog.js";
import { testPool, startServer, type TestServer } from "../helpers/server.js";

/** The notices a process sends after its commits (CLUSTER=1), heard by a listener on the same real PostgreSQL. */
let server: TestServer;
let listener: pg.Client;
const heard: Array<{ payload: string; at: number }> = [];

beforeAll(async () => {
  server = await startServer();
  listener = new pg.Client({ connectionString: server.databaseUrl });
  await listener.connect();
  listener.on("notification", (m) => heard.push({ payload: m.payload ?? "", at: performance.now() }));
  await listener.query(`LISTEN ${BATCH_CHANNEL}`);
}, 120_000);
afterAll(async () => {
  await listener?.end();
  await server?.cleanup();
});

describe("BatchNotifier", () => {
  it("names its process, spaces notices under a stream of commits, and follows the last commit with one", async () => {
    const origin = randomUUID();
    const pool = testPool(server.databaseUrl);
    const notifier = new BatchNotifier(pool, origin);
    heard.length = 0;
    const started = performance.now();
    let commits = 0;
    while (performance.now() - started < 500) {
      notifier.committed();
      commits++;
      await sleep(1);
    }
    const lastCommitAt = performance.now();
    await notifier.catchUp();
    await pool.end();
    // A notice sent after the last commit reaches the listener a round trip later.
    for (let i = 0; i < 100 && !heard.some((h) => h.at >= lastCommitAt); i++) await sleep(20);

    expect(heard.every((h) => h.payload === origin)).toBe(true);
    expect(heard.some((h) => h.at >= lastCommitAt)).toBe(true);
    // Hundreds of commits a millisecond apart, at most one notice per 20 ms of them (and one more after the last).
    expect(commits).toBeGreaterThan(100);
    expect(heard.length).toBeGreaterThan(1);
    expect(heard.length).toBeLessThanOrEqual(Math.ceil((lastCommitAt - started) / 20) + 2);
  });
});
