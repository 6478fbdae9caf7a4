import { Packr } from "msgpackr";
import type { RankRequest, RankResult } from "./schema.js";

/**
 * Messages between the front thread and the recommender threads, packed with msgpackr (both directions use
 * this one Packr so that they agree on the encoding).
 */
export const packr = new Packr({ useRecords: false, moreTypes: false });

/** Only what the index needs of a committed record: tuples, without free-form context; events stored by this batch only. */
export type IndexItem = [org: number, itemId: string, itemType: string, status: string, attributes: unknown, createdAt: string | null];
export type IndexUser = [org: number, userId: string, status: string];
export type IndexEvent = [
  org: number, userId: string, itemId: string | null, family: string, name: string, weight: number,
  previousUserId: string | null, occurredAt: string,
];

/** One recommend request; the front thread sends those of one event-loop turn together. */
export interface RankAsk {
  id: number;
  req: RankRequest;
}

export type RankAnswer = { id: number; result: RankResult } | { id: number; failed: string };

export type ToShard =
  | { t: "rank"; asks: RankAsk[] }
  | { t: "batch"; items: IndexItem[]; users: IndexUser[]; events: IndexEvent[] }
  | { t: "stats"; id: number; org: number };

export interface OrgStats {
  items: number;
  users: number;
  indexBytes: number;
  model: { trainedAt: number; trainingMs: number; factors: number } | undefined;
}

export type FromShard =
  | { t: "ranked"; answers: RankAnswer[] }
  | { t: "stats"; id: number; stats: OrgStats | undefined }
  | { t: "ready"; orgs: number; events: number; ms: number };

export function packMessage(m: ToShard | FromShard): Uint8Array {
  const packed = packr.pack(m);
  const out = new Uint8Array(packed.length);
  out.set(packed);
  return out;
}

export function unpackMessage<T extends ToShard | FromShard>(data: Uint8Array): T {
  return packr.unpack(data) as T;
}
