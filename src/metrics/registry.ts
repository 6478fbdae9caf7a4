import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { httpRequestsCounter, RouteDurationHistogram } from "./httpMetrics.js";
import { routeStats } from "./routeStats.js";

/** Every metric of the service, served by GET /metrics (README, "Metrics"). Names start with `recsvc_`. */
export const registry = new Registry();

/** The queue depths the gauges read at scrape time (main.ts points them at the batcher and the recommender). */
const queues = { ingestRecords: () => 0, recommendWaiting: () => 0 };

export function readQueuesFrom(sources: { ingestRecords: () => number; recommendWaiting: () => number }): void {
  Object.assign(queues, sources);
}

const SHARD = ["shard"] as const;

export const metrics = {
  /** Fed by the HTTP front (RequestContext.markAnswered through routeStats), read at scrape time. */
  httpRequests: httpRequestsCounter(routeStats, registry),
  httpRequestDuration: new RouteDurationHistogram(routeStats, registry),

  /** Batches sent to a writer (src/ingest/batcher.ts); a retried or split batch counts again. */
  ingestBatches: new Counter({
    name: "recsvc_ingest_batches_total",
    help: "Ingest batches sent to a writer thread (retries and split batches count again).",
    registers: [registry],
  }),
  ingestBatchRecords: new Histogram({
    name: "recsvc_ingest_batch_records",
    help: "Records (events, items, users) per ingest batch sent to a writer.",
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000],
    registers: [registry],
  }),
  ingestCommitSeconds: new Histogram({
    name: "recsvc_ingest_commit_seconds",
    help: "Writer round trip of each committed ingest batch: sent to the writer thread until its transaction committed.",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  }),
  ingestBatchesFailed: new Counter({
    name: "recsvc_ingest_batches_failed_total",
    help: "Ingest batches not committed: reason=unavailable (database unreachable) or rejected (refused by the database; a shared batch is then written request by request).",
    labelNames: ["reason"] as const,
    registers: [registry],
  }),
  ingestQueueRecords: new Gauge({
    name: "recsvc_ingest_queue_records",
    help: "Records accepted and not yet written (INGEST_QUEUE_MAX refuses beyond).",
    registers: [registry],
    collect() {
      this.set(queues.ingestRecords());
    },
  }),
  recommendWaitingRequests: new Gauge({
    name: "recsvc_recommend_waiting_requests",
    help: "Recommend requests sent to the recommender threads and not answered yet.",
    registers: [registry],
    collect() {
      this.set(queues.recommendWaiting());
    },
  }),

  /** CLUSTER=1: batches of other processes pruned from batch_log before this one read them (src/cluster/logReader.ts). */
  clusterBatchesMissed: new Counter({
    name: "recsvc_cluster_batches_missed_total",
    help: "CLUSTER=1: batches other processes logged that were pruned before this process read them; its recommendations lack them until it restarts.",
    registers: [registry],
  }),

  /** A recommender thread was started again after it died: `recommenderRestarts.inc({ shard: "0" })`. */
  recommenderRestarts: new Counter({
    name: "recsvc_recommender_restarts_total",
    help: "Recommender threads restarted after they died, by shard.",
    labelNames: SHARD,
    registers: [registry],
  }),
  /** Records a shard could not apply to its index and left out: `recommenderRecordsSkipped.inc({ shard }, n)`. */
  recommenderRecordsSkipped: new Counter({
    name: "recsvc_recommender_records_skipped_total",
    help: "Committed records a recommender thread could not apply to its index, by shard.",
    labelNames: SHARD,
    registers: [registry],
  }),
  /** Asks a shard reached past their deadline (answered 503 already) and dropped unranked: `recommenderAsksExpired.inc({ shard }, n)`. */
  recommenderAsksExpired: new Counter({
    name: "recsvc_recommender_asks_expired_total",
    help: "Recommend asks a recommender thread reached after their deadline (answered 503 already) and dropped without ranking, by shard.",
    labelNames: SHARD,
    registers: [registry],
  }),
  /** A model training finished: `modelTrainings.inc({ shard })`, with its length in modelTrainingSeconds. */
  modelTrainings: new Counter({
    name: "recsvc_model_trainings_total",
    help: "Model trainings finished, by shard.",
    labelNames: SHARD,
    registers: [registry],
  }),
  /** A training whose set TRAINING_ENTRIES_MAX held: its longest users' rows kept only their latest items. */
  modelTrainingsBudgeted: new Counter({
    name: "recsvc_model_trainings_budgeted_total",
    help: "Model trainings whose training set was held to TRAINING_ENTRIES_MAX (the longest records cut to their latest items), by shard.",
    labelNames: SHARD,
    registers: [registry],
  }),
  /** Length of one training: `modelTrainingSeconds.observe({ shard }, seconds)`. */
  modelTrainingSeconds: new Histogram({
    name: "recsvc_model_training_seconds",
    help: "Length of each model training (ALS, cells, neighbour lists), by shard.",
    labelNames: SHARD,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  }),
  /** What a shard's index holds, set when it changes or is reported: `indexItems.set({ shard }, n)`. */
  indexOrganisations: new Gauge({
    name: "recsvc_index_organisations",
    help: "Organisations held by each recommender shard.",
    labelNames: SHARD,
    registers: [registry],
  }),
  indexItems: new Gauge({
    name: "recsvc_index_items",
    help: "Items held in each recommender shard's index.",
    labelNames: SHARD,
    registers: [registry],
  }),
  indexUsers: new Gauge({
    name: "recsvc_index_users",
    help: "Users held in each recommender shard's index.",
    labelNames: SHARD,
    registers: [registry],
  }),
  /** How a recommender thread's load met each organisation's snapshot: `indexSnapshotLoads.inc({ result: "restored" })`. */
  indexSnapshotLoads: new Counter({
    name: "recsvc_index_snapshot_loads_total",
    help: "Organisations a recommender thread loaded, by how it met their index snapshot: restored (then replayed what committed after it), missing (loaded in full: none, or fenced by an erasure or retention), unreadable (bad checksum, another format, or broken: loaded in full).",
    labelNames: ["result"] as const,
    registers: [registry],
  }),
  /** Index snapshots stored, by outcome (written, fenced, failed). */
  indexSnapshotWrites: new Counter({
    name: "recsvc_index_snapshot_writes_total",
    help: "Index snapshots a recommender thread tried to store, by outcome: written, fenced (an erasure or retention round made it unusable meanwhile), failed.",
    labelNames: ["result"] as const,
    registers: [registry],
  }),
  indexSnapshotBytes: new Gauge({
    name: "recsvc_index_snapshot_bytes",
    help: "Bytes of the last index snapshot stored, by organisation.",
    labelNames: ["org"] as const,
    registers: [registry],
  }),
  indexBytes: new Gauge({
    name: "recsvc_index_bytes",
    help: "Bytes of each recommender shard's index (typed arrays and model).",
    labelNames: SHARD,
    registers: [registry],
  }),
};

// Both failure reasons are there from the start, at zero.
for (const reason of ["unavailable", "rejected"]) metrics.ingestBatchesFailed.inc({ reason }, 0);
for (const result of ["restored", "missing", "unreadable"]) metrics.indexSnapshotLoads.inc({ result }, 0);
for (const result of ["written", "fenced", "failed"]) metrics.indexSnapshotWrites.inc({ result }, 0);

/** Process metrics (CPU, memory, event-loop lag, GC, handles) under the same prefix; once per process. */
export function collectProcessMetrics(): void {
  collectDefaultMetrics({ register: registry, prefix: "recsvc_" });
}

/** Every shard's series exist from the start, at zero, so that rates and alerts see the first change. */
export function zeroShardSeries(shards: number): void {
  for (let i = 0; i < shards; i++) {
    const shard = String(i);
    for (const c of [
      metrics.recommenderRestarts,
      metrics.recommenderRecordsSkipped,
      metrics.recommenderAsksExpired,
      metrics.modelTrainings,
      metrics.modelTrainingsBudgeted,
    ]) {
      c.inc({ shard }, 0);
    }
    metrics.modelTrainingSeconds.zero({ shard });
    for (const g of [metrics.indexOrganisations, metrics.indexItems, metrics.indexUsers, metrics.indexBytes]) g.set({ shard }, 0);
  }
}
