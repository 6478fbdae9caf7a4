import { Packr } from "msgpackr";
import type { Explanation } from "./explanation.js";
import type { FilterValue, RankRequest, RankResult } from "./rank.js";
import type { RuleSet } from "./rules.js";
import type { Strategy } from "./strategies.js";

/**
 * Messages between the front thread and the recommender threads, packed with msgpackr (both directions use
 * this one Packr so that they agree on the encoding).
 */
export const packr = new Packr({ useRecords: false, moreTypes: false });

/** One recommend request; the front thread sends those of one event-loop turn together. */
export interface RankAsk {
  id: number;
  req: RankRequest;
  /**
   * When the front thread answers 503 without it (RECOMMEND_TIMEOUT_MS after it was asked), in ms since the epoch
   * (performance.timeOrigin + performance.now(): one clock for every thread of the process). A shard that reaches
   * an ask past it drops it without ranking it: its answer would be thrown away.
   */
  deadline: number;
}

/**
 * Asks travel as tuples, one per request: no field names to pack, and on arrival objects of one shape, built
 * by a literal (msgpackr builds each object key by key). Absent fields travel as null. Answers travel in an
 * AnswerBatch (answerBatch.ts).
 */
export type AskWire = [
  id: number,
  org: number,
  strategy: Strategy,
  userId: string | null,
  contextItemId: string | null,
  itemType: string | null,
  filters: Record<string, FilterValue> | null,
  excludeItemIds: string[] | null,
  excludeSeen: boolean,
  fields: string[] | null,
  limit: number,
  page: number,
  deadline: number,
  contextItemIds: string[] | null,
  candidates: Uint8Array | null,
  diversity: number | null,
  maxPer: Record<string, number> | null,
  scenario: string | null,
];
export function askToWire({ id, req: r, deadline }: RankAsk): AskWire {
  return [
    id,
    r.org,
    r.strategy,
    r.userId ?? null,
    r.contextItemId ?? null,
    r.itemType ?? null,
    r.filters ?? null,
    r.excludeItemIds ?? null,
    r.excludeSeen,
    r.fields ?? null,
    r.limit,
    r.page,
    deadline,
    r.contextItemIds ?? null,
    r.candidates ?? null,
    r.diversity ?? null,
    r.maxPer ?? null,
    r.scenario ?? null,
  ];
}

export function askFromWire(w: AskWire): RankAsk {
  const req: RankRequest = {
    org: w[1],
    strategy: w[2],
    userId: w[3] ?? undefined,
    contextItemId: w[4] ?? undefined,
    itemType: w[5] ?? undefined,
    filters: w[6] ?? undefined,
    excludeItemIds: w[7] ?? undefined,
    excludeSeen: w[8],
    fields: w[9] ?? undefined,
    limit: w[10],
    page: w[11],
    contextItemIds: w[13] ?? undefined,
    candidates: w[14] ?? undefined,
    diversity: w[15] ?? undefined,
    maxPer: w[16] ?? undefined,
    scenario: w[17] ?? undefined,
  };
  return { id: w[0], req, deadline: w[12] };
}

export type ToShard =
  | { t: "rank"; asks: AskWire[] }
  /**
   * A committed ingest batch, as the bytes the writer thread was given (packBatch): sent to each shard owning
   * one of its organisations, which applies its own organisations' records. `notStored`: positions of events
   * the index must skip: not stored (already held: not to count again) or an identify the database refused. `xid`: the transaction that
   * wrote it, for a batch another process logged (CLUSTER=1); the shard drops it if its load's snapshot held it.
   */
  | { t: "batch"; payload: Uint8Array; notStored: readonly number[] | null; xid: string | null }
  | { t: "stats"; id: number; org: number }
  /** The preview (POST /v1/recommend/preview): one ask ranked at once with its explanation, outside the asks' batches. */
  | { t: "explain"; id: number; ask: AskWire }
  /** Answered with `caughtUp` once every batch sent before it is applied (batches are applied in slices, between requests). */
  | { t: "catchUp"; id: number }
  /** CLUSTER=1: another process stored the organisation's model, this version (the shard loads it). */
  | { t: "model"; org: number; version: number }
  /**
   * Users erased (src/erasure/): their histories, statuses and aliases leave the index. Ordered with the
   * committed batches (what was applied before it is erased), and kept while the shard loads as batches are.
   */
  | { t: "erase"; org: number; userIds: string[] }
  /** An organisation's enabled rules as of `version` (migration 021), replacing what the shard held if older. */
  | ({ t: "rules" } & RuleSet)
  /**
   * Snapshot the index (migration 019): every batch committed before `position` (pg_current_snapshot() text,
   * taken at `takenAtS` on the database's clock) was sent before this message, and none of this process's committed
   * after it (another process's may have been: the thread knows their transactions). `fresh`: organisations
   * another process (CLUSTER=1) snapshotted lately, skipped; `orgs`: every organisation (a shard with nothing of
   * one of its own stores an empty snapshot for it).
   */
  | { t: "snapshot"; position: string; takenAtS: number; fresh: number[]; orgs: number[] };

export interface OrgStats {
  items: number;
  users: number;
  indexBytes: number;
  /** Distinct attribute tokens posted, and bytes kept for attributes (ORG_MAX_ATTRIBUTE_TOKENS and ORG_INDEX_MAX_BYTES bound them). */
  attributeTokens: number;
  attributeBytes: number;
  model: { trainedAt: number; trainingMs: number; factors: number } | undefined;
}

/** A shard's totals over its organisations, sent every few seconds for the metrics. */
export interface ShardSizes {
  orgs: number;
  items: number;
  users: number;
  indexBytes: number;
}

export type FromShard =
  | { t: "stats"; id: number; stats: OrgStats | undefined }
  /** `result` undefined: the ranking failed (logged by the shard). */
  | { t: "explained"; id: number; result: RankResult | undefined; explanation: Explanation | undefined }
  | { t: "caughtUp"; id: number }
  /** Loading: items and users are read; the events of `pending`'s organisations are being read, in that order. */
  | { t: "loading"; pending: number[] }
  /** Loading: these organisations are read in full (the shard handles their requests from now on). */
  | { t: "loaded"; orgs: number[] }
  | { t: "ready"; orgs: number; events: number; ms: number; skipped: number }
  /** Records the shard could not apply (logged there with their organisation and position) and skipped. */
  | { t: "skipped"; records: number }
  /** Asks the shard dropped unranked: their deadline had passed when their turn came (the front had answered 503). */
  | { t: "expired"; asks: number }
  /** `budgeted`: the training set was held to TRAINING_ENTRIES_MAX (its longest rows cut). */
  | { t: "trained"; org: number; ms: number; budgeted: boolean }
  | { t: "sizes"; sizes: ShardSizes }
  /** How the load met each organisation's snapshot, by outcome (restored, missing, unreadable). */
  | { t: "snapshotsLoaded"; outcomes: Record<string, number> }
  /** Snapshots stored (or refused by a fence, or failed), with their bytes and how long copying and writing took. */
  | { t: "snapshotWritten"; outcome: "written" | "fenced" | "failed"; org: number; bytes: number; copyMs: number; writeMs: number };

/**
 * A committed batch travels beside its header, not packed inside it: the owning shard gets the bytes the writer
 * thread had (moved, not copied), and the header alone is packed.
 */
export type BatchWire = [header: Uint8Array, payload: Uint8Array];

type BatchHeader = Omit<Extract<ToShard, { t: "batch" }>, "payload">;

export function batchToWire(payload: Uint8Array, notStored: readonly number[] | null, xid: string | null): BatchWire {
  return [packMessage({ t: "batch", notStored, xid } satisfies BatchHeader as ToShard), payload];
}

/** A message to a shard as it arrives: packed, or a batch beside its header. */
export function readToShard(raw: Uint8Array | BatchWire): ToShard {
  if (!Array.isArray(raw)) return unpackMessage<ToShard>(raw);
  const header = unpackMessage<ToShard>(raw[0]) as BatchHeader;
  return { t: "batch", notStored: header.notStored, xid: header.xid, payload: raw[1] };
}

export function packMessage(m: ToShard | FromShard): Uint8Array {
  const packed = packr.pack(m);
  const out = new Uint8Array(packed.length);
  out.set(packed);
  return out;
}

export function unpackMessage<T extends ToShard | FromShard>(data: Uint8Array): T {
  return packr.unpack(data) as T;
}

/** CLUSTER=1: the NOTIFY channel of stored models (payload "org version holder"; workers/recommender/sharedTraining.ts). */
export const MODEL_CHANNEL = "recsvc_models";
