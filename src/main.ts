import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import pg from "pg";
import { createApiKeyAuth } from "./auth/apiKeyAuth.js";
import { KeyCache } from "./auth/keyCache.js";
import { RateLimiter, type Limiter } from "./auth/rateLimit.js";
import { PasswordHasher } from "./auth/passwords.js";
import { LoginThrottle } from "./accounts/loginThrottle.js";
import { LogMailer } from "./accounts/mailer.js";
import { TokenSigner } from "./auth/tokens.js";
import { loadConfig, type Config } from "./config.js";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./db/embedded.js";
import { DatabaseHealth } from "./db/health.js";
import { InstanceLock } from "./db/instanceLock.js";
import { migrate } from "./db/migrate.js";
import { RetentionTask } from "./db/retention.js";
import { AnalyticsPrecountTask } from "./recommend/analyticsPrecount.js";
import { SnapshotTrigger } from "./recommend/indexSnapshots.js";
import { createPool } from "./db/pool.js";
import { DEFAULT_ALS } from "./wire/als.js";
import { jwtSecret } from "./db/jwtSecret.js";
import { Router } from "./http/router.js";
import { authRoutes } from "./http/routes/auth.js";
import { accountRoutes } from "./http/routes/accounts.js";
import { settingsRoutes } from "./http/routes/settings.js";
import { healthRoutes } from "./http/routes/health.js";
import { ingestRoutes } from "./http/routes/ingest.js";
import { metricsRoutes } from "./http/routes/metrics.js";
import { startMetricsServer } from "./http/metricsServer.js";
import { collectProcessMetrics, readQueuesFrom, zeroShardSeries } from "./metrics/registry.js";
import { shardMetrics } from "./metrics/shardMetrics.js";
import { uploadRoutes } from "./http/routes/upload.js";
import { dashboardRoutes } from "./http/routes/dashboard.js";
import { sdkRoutes } from "./http/routes/sdk.js";
import { startHttpServer, type HttpServer } from "./http/server.js";
import { Batcher } from "./ingest/batcher.js";
import { keepRefused } from "./ingest/refused.js";
import { createWriterPool, type WriterPool } from "./ingest/writerPool.js";
import { OrgQuotas } from "./ingest/quotas.js";
import { setHeapGrowth } from "./heapGrowth.js";
import { log, setLogLevel } from "./wire/log.js";
import { Attribution } from "./recommend/attribution.js";
import { RecommenderPool } from "./recommend/recommenderPool.js";
import { recommendRoutes } from "./http/routes/recommend.js";
import { analyticsRoutes } from "./http/routes/analytics.js";
import { openapiRoutes } from "./http/routes/openapi.js";
import type { Services } from "./services.js";
import { Cluster } from "./cluster/cluster.js";
import { RuleFeed } from "./rules/ruleFeed.js";
import { ruleRoutes } from "./http/routes/rules.js";
import { previewRoutes } from "./http/routes/preview.js";
import { ErasureRunner } from "./erasure/erasureRunner.js";
import { erasureRoutes } from "./http/routes/erasure.js";
import { ExperimentCache } from "./experiments/experimentCache.js";
import { experimentRoutes } from "./http/routes/experiments.js";

/** An erasure's claim lasts this long unless its holder renews it (each chunk does); erasures nobody holds are looked for this often. */
const ERASURE_CLAIM_S = 30;
const ERASURE_SWEEP_MS = 10_000;

interface Running {
  http: HttpServer;
  /** The token-free metrics listener (METRICS_PORT), when set. */
  metrics: HttpServer | undefined;
  services: Services;
  writers: WriterPool;
  embedded: EmbeddedDatabase | undefined;
  /** CLUSTER=1: what this process shares with the others on its database. */
  cluster: Cluster | undefined;
  instanceLock: InstanceLock;
  retention: RetentionTask;
  /** Counts the days analytics keep ahead of the reads; undefined with ANALYTICS_PRECOUNT_S=0. */
  precount: AnalyticsPrecountTask | undefined;
  snapshots: SnapshotTrigger;
}

/** `onLockTaken`: another process took this one's database while its lock was lost (src/db/instanceLock.ts). */
async function start(config: Config, onLockTaken: (reason: string) => void): Promise<Running> {
  const embedded = config.DATABASE_URL ? undefined : await startEmbeddedDatabase(config.DATA_DIR);
  const databaseUrl = config.DATABASE_URL ?? embedded!.url;
  // Before anything is written: a process that is not to share this database must find it to itself.
  const mode = config.CLUSTER ? "cluster" : "alone";
  const lockConnection = () =>
    new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: 2000,
      keepAlive: true,
      // Named so that a process refused at start can say which ones hold the database.
      application_name: `recsvc ${config.CLUSTER ? "CLUSTER=1" : "CLUSTER=0"} pid ${process.pid} on ${hostname()}`.slice(0, 63),
    });
  const instanceLock = await InstanceLock.take(lockConnection, mode, onLockTaken);
  const pool = createPool(databaseUrl);
  await migrate(pool);

  const health = new DatabaseHealth(pool);
  const connect = () => new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
  // Before any writer: the week's partition of `events` must exist (docs/operations.md).
  const retention = new RetentionTask(
    connect,
    { retentionDays: config.EVENTS_RETENTION_DAYS, dedupDays: config.EVENTS_DEDUP_DAYS },
    config.EVENTS_RETENTION_CHECK_S * 1000,
  );
  await retention.start();
  const keys = new KeyCache(pool, connect);
  await keys.start();
  const experiments = new ExperimentCache(pool, connect);
  await experiments.start();
  // CLUSTER=1: each batch is logged for the other processes in the transaction that writes it (docs/scaling.md).
  const cluster = config.CLUSTER ? new Cluster(pool, connect) : undefined;
  const quotaLimits = { items: config.ORG_MAX_ITEMS, users: config.ORG_MAX_USERS, attributeBytes: config.ORG_MAX_ATTRIBUTE_BYTES };
  const quotas = new OrgQuotas(pool, quotaLimits);
  const writers = createWriterPool(databaseUrl, config.INGEST_WRITERS, quotaLimits, cluster?.origin);
  // Before the shards start: their first reports (index sizes) must not be zeroed after they land.
  zeroShardSeries(config.RECOMMEND_SHARDS);
  await cluster?.beforeLoad();
  const origin = cluster?.origin ?? randomUUID();
  // Before the shards: each starts with its organisations' rules (CLUSTER=1: listening already, so none is missed).
  const rules = new RuleFeed(pool, origin, config.CLUSTER ? connect : undefined);
  await rules.start();
  const recommender = await RecommenderPool.start({
    databaseUrl,
    observer: shardMetrics,
    shards: config.RECOMMEND_SHARDS,
    timeoutMs: config.RECOMMEND_TIMEOUT_MS,
    orgQueueMax: config.RECOMMEND_ORG_QUEUE_MAX,
    retrainIntervalMs: config.RECOMMEND_RETRAIN_S * 1000,
    attributeCaps: { maxTokens: config.ORG_MAX_ATTRIBUTE_TOKENS, maxBytes: config.ORG_INDEX_MAX_BYTES },
    userLimits: { historyMax: config.USER_HISTORY_MAX, itemsMax: config.USER_ITEMS_MAX },
    trainingEntriesMax: config.TRAINING_ENTRIES_MAX,
    cluster: cluster && { holder: cluster.origin, leaseS: config.TRAINING_LEASE_S },
    snapshotMinEvents: config.INDEX_SNAPSHOT_MIN_EVENTS,
    ruleSets: (shard, shards) => rules.forShard(shard, shards),
    als: {
      ...DEFAULT_ALS,
      factors: config.ALS_FACTORS,
      iterations: config.ALS_ITERATIONS,
      regularization: config.ALS_REGULARIZATION,
      alpha: config.ALS_ALPHA,
    },
  });
  rules.attach(recommender);
  // CLUSTER=1: the others' batches and models flow in; those logged during the load count before this process listens.
  await cluster?.afterLoad(recommender);
  const batcher = new Batcher(writers, health, {
    ack: config.INGEST_ACK,
    lingerMs: config.INGEST_LINGER_MS,
    batchMax: config.INGEST_BATCH_MAX,
    queueMax: config.INGEST_QUEUE_MAX,
    onCommitted: (orgs, packed, notStored) => {
      recommender.publish(orgs, packed, notStored);
      cluster?.committed();
    },
    onRefusedAfterAck: (submission, message) => keepRefused(pool, submission, message),
    onUsage: (usage) => quotas.committed(usage),
    onQuotaRefused: (orgs) => quotas.doubt(orgs),
  });
  const snapshots = new SnapshotTrigger(pool, batcher, recommender, config.INDEX_SNAPSHOT_INTERVAL_S * 1000, cluster && (() => cluster.catchUp()));
  if (config.INDEX_SNAPSHOT_INTERVAL_S > 0) snapshots.start();
  // CLUSTER=1: every process counts against the same limits, leased from PostgreSQL (docs/scaling.md).
  const limiter = (name: string): Limiter => cluster?.limiter(name) ?? new RateLimiter();
  // Erasures left running by a process that stopped resume here (once their claim lapses).
  const erasures = new ErasureRunner(pool, {
    chunkBlocks: config.ERASURE_CHUNK_BLOCKS,
    retentionDays: config.ERASURES_RETENTION_DAYS,
    claimS: ERASURE_CLAIM_S,
    sweepMs: ERASURE_SWEEP_MS,
  });
  erasures.start();
  readQueuesFrom({ ingestRecords: () => batcher.queued, recommendWaiting: () => recommender.waiting });
  const services: Services = {
    config,
    pool,
    health,
    tokens: new TokenSigner(await jwtSecret(pool, config.JWT_SECRET)),
    keys,
    apiKeys: createApiKeyAuth(keys, limiter("organisation"), { max: config.RATE_LIMIT_MAX, windowS: config.RATE_LIMIT_WINDOW_S }),
    authLimiter: limiter("sign-in"),
    membersLimiter: limiter("members"),
    previewLimiter: limiter("previews"),
    loginThrottle: new LoginThrottle(pool, { max: config.LOGIN_FAILURES_MAX, windowS: config.LOGIN_FAILURES_WINDOW_S }),
    passwords: new PasswordHasher({ concurrency: config.PASSWORD_HASH_CONCURRENCY, queueMax: config.PASSWORD_HASH_QUEUE_MAX }),
    mailer: new LogMailer(),
    batcher,
    quotas,
    recommender,
    attribution: new Attribution(writers),
    experiments,
    erasures,
    rules,
    origin,
  };

  const router = new Router();
  for (const routes of [
    healthRoutes,
    authRoutes,
    accountRoutes,
    settingsRoutes,
    uploadRoutes,
    ingestRoutes,
    erasureRoutes,
    ruleRoutes,
    previewRoutes,
    recommendRoutes,
    analyticsRoutes,
    experimentRoutes,
    dashboardRoutes,
    sdkRoutes,
    metricsRoutes,
    openapiRoutes,
  ])
    routes(services).forEach((r) => router.add(r));
  const http = await startHttpServer(router, config.HOST, config.PORT, config.TRUST_PROXY ? config.TRUSTED_PROXIES : undefined);
  const metrics = config.METRICS_PORT === undefined ? undefined : await startMetricsServer(config.METRICS_HOST, config.METRICS_PORT);
  const precount =
    config.ANALYTICS_PRECOUNT_S > 0
      ? new AnalyticsPrecountTask(pool, config.ANALYTICS_PRECOUNT_S * 1000, config.ANALYTICS_PRECOUNT_BUDGET_MS)
      : undefined;
  precount?.start();
  return { http, metrics, services, writers, embedded, cluster, instanceLock, retention, precount, snapshots };
}

/** SIGTERM/SIGINT: stop accepting, write every queued batch, then exit 0 (CONTRACT 1). */
async function shutdown(r: Running, signal: string): Promise<void> {
  log.info("shutting down", { signal, queued: r.services.batcher.queued });
  r.http.stopListening();
  r.metrics?.stopListening();
  // Connections still open keep sending after the listen socket closed: refuse their records (503) so none
  // is acknowledged after the final flush.
  await r.snapshots.stop();
  await r.services.batcher.close();
  await r.services.erasures.stop();
  await r.cluster?.stop();
  await r.services.rules.stop();
  await r.services.attribution.close();
  await r.services.recommender.close();
  await r.cluster?.releaseLeases();
  await r.writers.close();
  await r.services.keys.stop();
  await r.services.experiments.stop();
  await r.retention.stop();
  await r.precount?.stop();
  r.services.health.stop();
  await r.services.pool.end();
  // Last before the database itself: a successor may start once nothing of this process writes any more.
  await r.instanceLock.release();
  await r.embedded?.stop();
  log.info("stopped");
}

function httpUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

async function main(): Promise<void> {
  const config = loadConfig();
  setLogLevel(config.LOG_LEVEL);
  setHeapGrowth(config.HEAP_GROWTH_PERCENT);
  collectProcessMetrics();
  // Filled once started: the lock may be lost, and the process told to stop, while it still starts.
  const started: { running?: Running } = {};
  let stopping = false;
  /** Shuts down and exits with `code`; `reason` is a signal's name or why the process may not go on. */
  const stop = (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    if (started.running === undefined) process.exit(code);
    shutdown(started.running, reason).then(
      () => process.exit(code),
      (err) => {
        log.error("shutdown failed", { error: (err as Error).stack });
        process.exit(1);
      },
    );
  };
  const running = await start(config, (reason) => {
    log.error("stopping: another process took this database while its instance lock was lost", { reason });
    stop("instance lock taken", 1);
  });
  started.running = running;
  // Before the URL is printed: whoever reads it may send SIGTERM at once, and a signal with no handler yet
  // kills the process without the flush (a test saw exit by signal under load).
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => stop(signal, 0));
  const url = httpUrl(config.HOST, running.http.port);
  // The service's line comes first: scripts and tests take the first "listening on" URL as the service's.
  process.stdout.write(`recommendation service listening on ${url}\nweb dashboard: ${url}/dashboard\n`);
  if (running.metrics) process.stdout.write(`metrics listening on ${httpUrl(config.METRICS_HOST, running.metrics.port)}/metrics\n`);
}

main().catch((err) => {
  log.error("start-up failed", { error: (err as Error).stack ?? String(err) });
  process.exit(1);
});
