import { expect } from "vitest";
import type { Org } from "./api.js";
import { recommend } from "./recommend.js";
import type { TestServer } from "./server.js";

/**
 * What a process counted against what PostgreSQL stored, for tests where events must count exactly once: items
 * whose events are older than popular's recent window are ranked by plain sums of weights, which do not fade.
 */

/** Each item's popular score in a process, by item id. */
export async function popularScores(p: TestServer, org: Org): Promise<Record<string, number>> {
  const r = await recommend(p.url, org, { strategy: "popular", limit: 100 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return Object.fromEntries((r.body.data.results as Array<{ item_id: string; score: number }>).map((x) => [x.item_id, x.score]));
}

/** Each item's summed weight as PostgreSQL holds the events (the scores' exact value). */
export async function storedSums(p: TestServer, org: Org): Promise<Record<string, number>> {
  const { rows } = await p
    .db()
    .query<{ item_id: string; w: number }>(
      "SELECT item_id, sum(weight)::float8 AS w FROM events WHERE org = (SELECT seq FROM organisations WHERE id = $1) AND event_family <> 'exposure' GROUP BY item_id",
      [org.orgId],
    );
  return Object.fromEntries(rows.map((r) => [r.item_id, Math.round(r.w * 1e6) / 1e6]));
}

export const total = (scores: Record<string, number>) => Object.values(scores).reduce((a, b) => a + b, 0);
