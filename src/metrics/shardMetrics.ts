import type { ShardObserver } from "../recommend/recommenderPool.js";
import { metrics } from "./registry.js";

/** What the recommender threads report, as metrics (they cannot reach the registry: it lives in this thread). */
export const shardMetrics: ShardObserver = {
  restarted: (shard) => metrics.recommenderRestarts.inc({ shard: String(shard) }),
  skipped: (shard, records) => metrics.recommenderRecordsSkipped.inc({ shard: String(shard) }, records),
  expired: (shard, asks) => metrics.recommenderAsksExpired.inc({ shard: String(shard) }, asks),
  trained: (shard, ms, budgeted) => {
    metrics.modelTrainings.inc({ shard: String(shard) });
    if (budgeted) metrics.modelTrainingsBudgeted.inc({ shard: String(shard) });
    metrics.modelTrainingSeconds.observe({ shard: String(shard) }, ms / 1000);
  },
  snapshotsLoaded: (outcomes) => {
    for (const [result, n] of Object.entries(outcomes)) metrics.indexSnapshotLoads.inc({ result }, n);
  },
  snapshotWritten: (m) => {
    metrics.indexSnapshotWrites.inc({ result: m.outcome });
    if (m.outcome === "written") metrics.indexSnapshotBytes.set({ org: String(m.org) }, m.bytes);
  },
  sizes: (shard, s) => {
    const labels = { shard: String(shard) };
    metrics.indexOrganisations.set(labels, s.orgs);
    metrics.indexItems.set(labels, s.items);
    metrics.indexUsers.set(labels, s.users);
    metrics.indexBytes.set(labels, s.indexBytes);
  },
};
