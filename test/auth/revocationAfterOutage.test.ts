import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, viewEvent } from "../helpers/api.js";
import { startPostgres, stopPostgres } from "../helpers/postgres.js";
import { startServer, type TestServer } from "../helpers/server.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two processes (CLUSTER=1, as processes sharing a database must be) on one embedded PostgreSQL, which restarts between them and the revocation. */
describe("revocation across processes after a database restart", () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    first = await startServer({ embedded: true, env: { CLUSTER: "1" } });
    second = await startServer({ reuse: first, env: { CLUSTER: "1" } });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.cleanup();
  });

  it("still reaches the other process once its notification listener has reconnected", async () => {
    const org = await newOrg(first.url);
    const viaSecond = () => call(second.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: org.pk });
    expect((await viaSecond()).status).toBe(202);

    await stopPostgres(first, "fast");
    await startPostgres(first);
    let revoked = 0;
    for (let i = 0; i < 50 && revoked !== 200; i++) {
      revoked = (await call(first.url, "POST", `/v1/keys/${org.keyPairId}/revoke`, { token: org.token })).status;
      if (revoked !== 200) await sleep(100);
    }
    expect(revoked).toBe(200);

    const from = Date.now();
    let status = 202;
    while (Date.now() - from < 5000) {
      status = (await viaSecond()).status;
      if (status === 401) break;
      await sleep(50);
    }
    expect(status).toBe(401);
  });
});
