import { z } from "zod";
import { DEFAULT_TRUSTED_PROXIES, TrustedProxies } from "./http/trustedProxies.js";
import { DEFAULT_ALS } from "./wire/als.js";
import { DEFAULT_USER_LIMITS } from "./wire/userLimits.js";
import { DEFAULT_TRAINING_ENTRIES_MAX } from "./wire/trainingBudget.js";

const JWT_SECRET_MIN_BYTES = 32;
const flag = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");
/** An optional setting set to the empty string counts as unset (`METRICS_PORT=` must not mean port 0). */
const unsetIfEmpty = (v: unknown) => (v === "" ? undefined : v);

/** Every setting of the service, read from the environment once at start-up. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default("./.data"),
  INGEST_ACK: z.enum(["durable", "queued"]).default("durable"),
  /** HS256 wants a key as long as its hash (RFC 7518 3.2): 32 bytes, counted in UTF-8 as the signer uses it. */
  JWT_SECRET: z
    .string()
    .refine((s) => Buffer.byteLength(s, "utf8") >= JWT_SECRET_MIN_BYTES, {
      message: `must be at least ${JWT_SECRET_MIN_BYTES} bytes in UTF-8 (for example \`openssl rand -base64 48\`), or unset to have one generated`,
    })
    .optional(),
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(1000),
  RATE_LIMIT_WINDOW_S: z.coerce.number().int().positive().default(900),
  AUTH_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(10),
  AUTH_RATE_LIMIT_WINDOW_S: z.coerce.number().int().positive().default(900),
  /** Wrong passwords per email (whatever the client address) before sign-ins for it answer 429 until the window ends. */
  LOGIN_FAILURES_MAX: z.coerce.number().int().positive().default(10),
  LOGIN_FAILURES_WINDOW_S: z.coerce.number().int().positive().default(900),
  /** Member invitations per organisation per window (each may send a mail). */
  MEMBERS_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(30),
  MEMBERS_RATE_LIMIT_WINDOW_S: z.coerce.number().int().positive().default(900),
  /** Previews (POST /v1/recommend/preview) per organisation and window: each explains a ranking on a recommender thread. */
  PREVIEW_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(120),
  PREVIEW_RATE_LIMIT_WINDOW_S: z.coerce.number().int().positive().default(60),
  /** Password hashes run at once in this process, and how many may wait; beyond, 503 (scrypt: 32 MiB and a threadpool thread each). */
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  PASSWORD_HASH_QUEUE_MAX: z.coerce.number().int().min(0).max(10_000).default(32),
  /** Signed-in sessions kept per account; a sign-in beyond ends the oldest. */
  SESSIONS_PER_ACCOUNT_MAX: z.coerce.number().int().min(1).max(1000).default(50),
  /** Lifetime of a password-reset token, and of an invitation. */
  PASSWORD_RESET_TTL_S: z.coerce.number().int().min(60).max(86_400).default(1800),
  INVITATION_TTL_S: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(7 * 86_400),
  /** Invitations an organisation may have waiting at once. */
  INVITATIONS_PENDING_MAX: z.coerce.number().int().min(1).max(10_000).default(100),
  TRUST_PROXY: flag.default(false),
  /**
   * TRUST_PROXY=1: the proxies whose X-Forwarded-For is believed (addresses and CIDR ranges, comma-separated).
   * The client is the right-most entry not among them, walking from the socket's peer (src/http/trustedProxies.ts).
   */
  TRUSTED_PROXIES: z
    .string()
    .default(DEFAULT_TRUSTED_PROXIES)
    .transform((text, ctx) => {
      const parsed = TrustedProxies.parse(text);
      if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: parsed });
      return typeof parsed === "string" ? z.NEVER : parsed;
    }),
  /**
   * This process shares its database with other service processes (behind a load balancer): it announces each
   * committed batch through PostgreSQL and applies the others' to its recommender, and it leases its rate-limit
   * quota from PostgreSQL so that the limits hold across the processes (docs/scaling.md).
   */
  CLUSTER: flag.default(false),
  /**
   * CLUSTER=1: the process that trains an organisation's model holds it this long unrenewed (it renews every third
   * of it): a process that dies hands its organisations' training to another this much later.
   */
  TRAINING_LEASE_S: z.coerce.number().int().min(1).max(3600).default(30),
  /** Mark the web dashboard's session cookie Secure (set it when the dashboard is served over HTTPS). */
  COOKIE_SECURE: flag.default(false),
  /** Writer threads: each holds one database connection and one batch in flight. */
  INGEST_WRITERS: z.coerce.number().int().min(1).max(16).default(2),
  /**
   * How long an open batch waits for company when every writer is idle (0: only the requests read in the same
   * event-loop turn). Under load batches form behind the write in flight, whatever this is.
   */
  INGEST_LINGER_MS: z.coerce.number().min(0).max(1000).default(0),
  /** A batch closes at this many records even if the linger has not passed. */
  INGEST_BATCH_MAX: z.coerce.number().int().min(1).default(10000),
  /** Records waiting for a writer beyond this are refused with 503 rather than held in memory. */
  INGEST_QUEUE_MAX: z.coerce.number().int().min(1).default(200000),
  /** Recommender threads; each owns the organisations whose seq modulo this is its number. */
  RECOMMEND_SHARDS: z.coerce.number().int().min(1).max(16).default(2),
  /** A recommend request the recommender threads have not answered by then gets 503. */
  RECOMMEND_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(2000),
  /**
   * An organisation's recommend requests waiting for its shard beyond this get 503 at once instead of waiting for
   * RECOMMEND_TIMEOUT_MS (the shard serves its organisations in turn, so one organisation's queue never holds
   * up another's answers; this bounds how long it holds up its own, and the shard's memory).
   */
  RECOMMEND_ORG_QUEUE_MAX: z.coerce.number().int().min(1).max(100_000).default(256),
  /**
   * Hard limits per organisation inside each recommender thread: distinct attribute tokens posted for `similar`,
   * and bytes kept for items' attributes (answer texts and filter values, which take more than the compact JSON
   * the ORG_MAX_ATTRIBUTE_BYTES quota counts). Past either the index stops adding that organisation's new tokens
   * or attributes and goes on serving (workers/index/attributeCaps.ts): a safety net under the quotas, which
   * refuse the upsert itself.
   */
  ORG_MAX_ATTRIBUTE_TOKENS: z.coerce.number().int().min(1).default(1_000_000),
  ORG_INDEX_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(768 * 1024 ** 2),
  /**
   * What each recommender thread keeps of one user (src/wire/userLimits.ts): the latest USER_HISTORY_MAX
   * events (`recently-viewed`, `buy-again`, `because-you-viewed`, co-occurrence), and the latest USER_ITEMS_MAX
   * distinct items the user is known by (`exclude_seen`, the model's training row, `personalized`'s query).
   * Memory, snapshots and training grow per user up to these, not with the user's whole record.
   */
  USER_HISTORY_MAX: z.coerce.number().int().min(16).max(4_096).default(DEFAULT_USER_LIMITS.historyMax),
  USER_ITEMS_MAX: z.coerce.number().int().min(16).max(65_536).default(DEFAULT_USER_LIMITS.itemsMax),
  /**
   * The most (user, item) entries one organisation's training set holds: past it each user's row keeps their
   * latest items, the longest records cut first (workers/training/trainingSet.ts), so that a training's memory
   * (about 40 bytes an entry at its peak) and time follow the number of users, not the length of the history.
   */
  TRAINING_ENTRIES_MAX: z.coerce.number().int().min(10_000).default(DEFAULT_TRAINING_ENTRIES_MAX),
  /** Models are retrained at least this often while events arrive (and sooner after much new data). */
  RECOMMEND_RETRAIN_S: z.coerce.number().int().min(1).default(600),
  /** ALS: latent factors, iterations, regularisation and confidence scale (c = 1 + alpha·log(1 + strength)). */
  ALS_FACTORS: z.coerce.number().int().min(2).max(256).default(DEFAULT_ALS.factors),
  ALS_ITERATIONS: z.coerce.number().int().min(1).max(50).default(DEFAULT_ALS.iterations),
  ALS_REGULARIZATION: z.coerce.number().positive().default(DEFAULT_ALS.regularization),
  ALS_ALPHA: z.coerce.number().positive().default(DEFAULT_ALS.alpha),
  /**
   * Events are kept this many days from their arrival: `events` is partitioned by week of receipt, and a week's
   * partition is dropped once all of it is older (docs/operations.md). An organisation may set a shorter one.
   */
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
  /** A resent event_id arriving within this many days of the first is stored once (`event_ids` keeps them). */
  EVENTS_DEDUP_DAYS: z.coerce.number().int().min(7).max(90).default(7),
  /**
   * How often each recommender thread snapshots the organisations whose index changed, into PostgreSQL
   * (docs/operations.md, Snapshots); a restart then reads the snapshot and replays only what committed after it.
   * 0: never (every start replays all stored events).
   */
  INDEX_SNAPSHOT_INTERVAL_S: z.coerce.number().int().min(0).max(86_400).default(600),
  /**
   * Organisations whose index applied fewer events since its full load are not snapshotted (fewer rows written a
   * round); each start then reads their events in a pass over all of `events`, which has no index by organisation.
   */
  INDEX_SNAPSHOT_MIN_EVENTS: z.coerce.number().int().min(1).default(1),
  /** How often the retention task runs (partitions ahead, expired ones dropped, `event_ids` pruned). */
  EVENTS_RETENTION_CHECK_S: z.coerce.number().int().min(1).max(86_400).default(3600),
  /**
   * How often the days analytics keep are counted ahead of the reads (src/recommend/analyticsPrecount.ts), each
   * round for at most ANALYTICS_PRECOUNT_BUDGET_MS; 0: never (the reads count what they need).
   */
  ANALYTICS_PRECOUNT_S: z.coerce.number().int().min(0).max(86_400).default(600),
  ANALYTICS_PRECOUNT_BUDGET_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Largest file accepted by the bulk upload endpoints; the body is streamed, never held whole. */
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 ** 3),
  /**
   * Per-organisation quotas (README, Quotas): items and users stored, and bytes of items' attributes (compact
   * JSON, what the recommender keeps in memory; it also bounds an organisation's distinct attribute tokens).
   * An organisation's own value in `organisations.max_items` / `max_users` / `max_attribute_bytes` wins.
   */
  ORG_MAX_ITEMS: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(1_000_000),
  ORG_MAX_USERS: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(10_000_000),
  ORG_MAX_ATTRIBUTE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(256 * 1024 ** 2),
  /**
   * Erasure (README, Erasure): erasures of one organisation running at once (429 beyond), blocks of a table (8 KiB
   * each) one DELETE of an erasure scans, and how long a done erasure's counts are kept.
   */
  ERASURES_PENDING_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  ERASURE_CHUNK_BLOCKS: z.coerce.number().int().min(16).max(1_000_000).default(4096),
  ERASURES_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Experiments an organisation may have, running or stopped (403 quota_exceeded beyond; README, Experiments). */
  ORG_MAX_EXPERIMENTS: z.coerce.number().int().min(1).max(10_000).default(200),
  /** A CSV upload whose header has more columns than this is refused (400) before any row is read. */
  UPLOAD_MAX_COLUMNS: z.coerce.number().int().min(8).max(100_000).default(1000),
  /** Uploads running at once per organisation (429 beyond) and in the process (503 beyond). */
  UPLOAD_MAX_PER_ORG: z.coerce.number().int().min(1).max(64).default(2),
  UPLOAD_MAX_CONCURRENT: z.coerce.number().int().min(1).max(256).default(4),
  /** Merchandising rules per organisation (README, Rules): each is checked on every recommend request it could apply to. */
  RULES_MAX: z.coerce.number().int().min(1).max(1000).default(100),
  /** Heap growth between full collections, in percent of the live heap (0: V8's own choice); see src/heapGrowth.ts. */
  HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(1000).default(300),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Opens GET /metrics on the service's port to `Authorization: Bearer <METRICS_TOKEN>`; unset: 404 there. */
  METRICS_TOKEN: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .min(16)
      .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces (it travels in a header)")
      .optional(),
  ),
  /** A second listener serving only GET /metrics, without a token (0: a free port, printed); unset: none. */
  METRICS_PORT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(65535).optional()),
  /** Where that listener binds: keep it on loopback or a private interface, it asks for no token. */
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
});

export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid settings: ${problems}`);
  }
  return parsed.data;
}
