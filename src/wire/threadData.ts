import type { AlsParams } from "./als.js";
import type { LogLevel } from "./log.js";
import type { UserLimits } from "./userLimits.js";

/** `workerData` of every writer thread (piscina). */
export interface WriterThreadData {
  databaseUrl: string;
  logLevel: LogLevel;
  /** CLUSTER=1: this process's uuid, under which each batch is logged in its own transaction (src/wire/batchLog.ts). */
  announceAs?: string;
  /** The default per-organisation quotas (ORG_MAX_*), which the database's triggers enforce (migration 013). */
  quotas: OrgQuotaLimits;
}

/** An organisation's limits: items and users stored, bytes of items' attributes. */
export interface OrgQuotaLimits {
  items: number;
  users: number;
  attributeBytes: number;
}

/** `workerData` of a recommender thread. */
export interface RecommenderThreadData {
  databaseUrl: string;
  shard: number;
  shards: number;
  als: AlsParams;
  retrainIntervalMs: number;
  /** Each organisation's limits inside the index: settings ORG_MAX_ATTRIBUTE_TOKENS and ORG_INDEX_MAX_BYTES. */
  orgMaxAttributeTokens: number;
  orgMaxAttributeBytes: number;
  /** What the index keeps per user: settings USER_HISTORY_MAX and USER_ITEMS_MAX. */
  userLimits: UserLimits;
  /** TRAINING_ENTRIES_MAX: the most entries one organisation's training set holds (workers/training/trainingSet.ts). */
  trainingEntriesMax: number;
  /** Started again after the thread died: the service is serving, so organisations are loaded smallest first. */
  restart: boolean;
  logLevel: LogLevel;
  /** CLUSTER=1: this process's id (its batches' origin), and how long a training lease lasts unrenewed. */
  cluster: { holder: string; leaseS: number } | null;
  /** INDEX_SNAPSHOT_MIN_EVENTS: an organisation whose index applied fewer events since its full load is not snapshotted (its replay is cheap). */
  snapshotMinEvents: number;
}
