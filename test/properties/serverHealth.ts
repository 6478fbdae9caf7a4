import { expect } from "vitest";
import type { TestServer } from "../helpers/server.js";

/** Sums a counter's samples over its labels in Prometheus text; undefined when the counter is absent. */
function counterSum(text: string, name: string): number | undefined {
  const samples = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})?\\s+(\\S+)`, "gm"))];
  return samples.length === 0 ? undefined : samples.reduce((sum, m) => sum + Number(m[1]), 0);
}

/**
 * The server came through the generated traffic whole: no recommender thread exited (its log line), nothing
 * logged at error level (a refused batch, a record a shard skipped, a failed recommend), and the restart and
 * skipped-record counters of GET /metrics sum to 0 over shards.
 */
export async function expectServerHealthy(server: TestServer, metricsToken: string): Promise<void> {
  const log = server.output();
  expect(log, "server log").not.toContain("recommender thread exited");
  expect(
    log.split("\n").filter((line) => line.includes('"level":"error"')),
    "error lines in the server log",
  ).toEqual([]);
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(counterSum(text, "recsvc_recommender_restarts_total"), "recommender restarts").toBe(0);
  expect(counterSum(text, "recsvc_recommender_records_skipped_total"), "records the recommender skipped").toBe(0);
}
