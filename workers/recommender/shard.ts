import type { BatchPayload } from "../../src/wire/batchRows.js";
import type { OrgStats, ShardSizes } from "../../src/wire/shardMessages.js";
import type { RankRequest, RankResult } from "../../src/wire/rank.js";
import { unpackBatch } from "../../src/wire/batchPack.js";
import { type AttributeCaps, UNCAPPED } from "../index/attributeCaps.js";
import { OrgIndex } from "../index/orgIndex.js";
import { DEFAULT_USER_LIMITS, type UserLimits } from "../../src/wire/userLimits.js";
import { eachPackedEvent, FAMILY } from "../index/packedEvents.js";
import { rank } from "../strategies/rank.js";
import { log } from "../../src/wire/log.js";
import { Skips } from "./skips.js";

/** The organisations one recommender thread owns (org seq modulo the number of shards) and their indexes. */
export class Shard {
  private readonly orgs = new Map<number, OrgIndex>();
  /** What apply() could not apply since the caller last flushed it. */
  readonly skips = new Skips();

  /**
   * `caps`: each organisation's limits inside the index (settings ORG_MAX_ATTRIBUTE_TOKENS and ORG_INDEX_MAX_BYTES);
   * `limits`: what it keeps per user (USER_HISTORY_MAX, USER_ITEMS_MAX).
   */
  constructor(
    private readonly caps: AttributeCaps = UNCAPPED,
    private readonly limits: UserLimits = DEFAULT_USER_LIMITS,
  ) {}

  org(org: number): OrgIndex {
    let index = this.orgs.get(org);
    if (!index) this.orgs.set(org, (index = new OrgIndex(org, undefined, this.caps, this.limits)));
    return index;
  }

  /** Drops the organisation's index (a snapshot that failed half-way into it): the next org() starts anew. */
  discard(org: number): void {
    this.orgs.delete(org);
  }

  has(org: number): boolean {
    return this.orgs.has(org);
  }

  all(): Iterable<OrgIndex> {
    return this.orgs.values();
  }

  /** Erased users leave the organisation's index (when this shard holds it). */
  erase(org: number, userIds: readonly string[]): void {
    this.orgs.get(org)?.eraseUsers(userIds);
  }

  rank(req: RankRequest): RankResult {
    return rank(this.org(req.org), req);
  }

  /**
   * A committed ingest batch: the records of the organisations `owns` says are this shard's, items and users
   * first so that events in the same batch see them; events at `notStored` (already held) are not counted
   * again, nor those before `fromEvent` (applied already). A record that throws is skipped (see Skips).
   */
  apply(batch: BatchPayload, notStored: readonly number[] | null, owns: (org: number) => boolean, fromEvent = 0): void {
    drain(this.applySteps(batch, notStored, owns, fromEvent));
  }

  /** apply() in steps of at most RECORDS_PER_STEP records or STEP_MS: the caller may answer requests between them. */
  *applySteps(batch: BatchPayload, notStored: readonly number[] | null, owns: (org: number) => boolean, fromEvent = 0): Generator<void, void> {
    let n = 0;
    let stepEnds = performance.now() + STEP_MS;
    /** Whether the step is over: RECORDS_PER_STEP records, or STEP_MS of them when records are costly (long attributes). */
    const stepOver = (): boolean => {
      if (++n % RECORDS_PER_STEP !== 0 && performance.now() < stepEnds) return false;
      n = 0;
      return true;
    };
    for (let position = 0; position < batch.items.length; position++) {
      const [org, id, type, status, attributes, createdAt] = batch.items[position]!;
      if (!owns(org)) continue;
      try {
        this.org(org).upsertItem(
          id,
          type,
          status,
          (attributes ?? {}) as Record<string, unknown>,
          createdAt === null ? null : Date.parse(createdAt) / 1000,
        );
      } catch (err) {
        this.skips.add(org, "item", position, err);
      }
      if (stepOver()) {
        yield;
        stepEnds = performance.now() + STEP_MS;
      }
    }
    for (let position = 0; position < batch.users.length; position++) {
      const [org, id, status] = batch.users[position]!;
      if (!owns(org)) continue;
      try {
        this.org(org).upsertUser(id, status);
      } catch (err) {
        this.skips.add(org, "user", position, err);
      }
      if (stepOver()) {
        yield;
        stepEnds = performance.now() + STEP_MS;
      }
    }
    const skip = notStored && notStored.length > 0 ? new Set(notStored) : undefined;
    const nowS = Date.now() / 1000;
    let lastText = "";
    let lastS = 0;
    const { events } = batch;
    for (let i = fromEvent; i < events.length; i++) {
      const [org, , userId, itemId, family, name, weight, previousUserId, , , occurredAt] = events[i]!;
      if (family === "exposure" || !owns(org) || skip?.has(i)) continue;
      // Events stamped at receipt share their time text: parse it once.
      if (occurredAt !== lastText) {
        lastText = occurredAt;
        lastS = Date.parse(occurredAt) / 1000;
      }
      try {
        this.org(org).applyEvent({ userId, itemId, family, name, weight, previousUserId, atS: lastS }, nowS);
      } catch (err) {
        this.skips.add(org, "event", i, err);
      }
      if (stepOver()) {
        yield;
        stepEnds = performance.now() + STEP_MS;
      }
    }
  }

  /** applyPackedSteps() at once. */
  applyPacked(packed: Uint8Array, notStored: readonly number[] | null, owns: (org: number) => boolean): void {
    drain(this.applyPackedSteps(packed, notStored, owns));
  }

  /**
   * apply() for a batch as packBatch made it. Its events are read in place (index/packedEvents.ts), in one
   * step (a batch of 10,000 events takes a few milliseconds), unless it also holds items or users: then it
   * is unpacked and applied in steps (10,000 items took a shard 100–200 ms in one go). Bytes the in-place
   * reader cannot follow (a reader bug: ids of 256 bytes once were one) are read by msgpackr instead, from
   * the first event not applied yet.
   */
  *applyPackedSteps(packed: Uint8Array, notStored: readonly number[] | null, owns: (org: number) => boolean): Generator<void, void> {
    const skip = notStored && notStored.length > 0 ? new Set(notStored) : undefined;
    const nowS = Date.now() / 1000;
    let next = 0;
    let inPlace: boolean;
    try {
      inPlace = eachPackedEvent(packed, (e) => {
        next = e.position + 1;
        if (e.family === FAMILY.exposure || !owns(e.org) || skip?.has(e.position)) return;
        try {
          this.org(e.org).applyPackedEvent(e, nowS);
        } catch (err) {
          this.skips.add(e.org, "event", e.position, err);
        }
      });
    } catch (err) {
      log.error("a committed batch could not be read in place; reading it unpacked", { event: next, error: (err as Error).stack });
      inPlace = false;
    }
    if (inPlace) return;
    let batch: BatchPayload;
    try {
      batch = unpackBatch(packed);
    } catch (err) {
      // Its records are in PostgreSQL all the same: the index has them back at the shard's next load.
      this.skips.add(-1, "batch", next, err);
      return;
    }
    yield* this.applySteps(batch, notStored, owns, next);
  }

  /** Totals over this shard's organisations. */
  sizes(): ShardSizes {
    const sizes: ShardSizes = { orgs: 0, items: 0, users: 0, indexBytes: 0 };
    for (const org of this.orgs.keys()) {
      const s = this.stats(org)!;
      sizes.orgs++;
      sizes.items += s.items;
      sizes.users += s.users;
      sizes.indexBytes += s.indexBytes;
    }
    return sizes;
  }

  stats(org: number): OrgStats | undefined {
    const index = this.orgs.get(org);
    if (!index) return undefined;
    const m = index.model;
    const modelBytes = m
      ? m.itemCodes.byteLength +
        m.itemScales.byteLength * 2 +
        m.rowOf.byteLength * 2 +
        m.userVectors.byteLength +
        m.itemGram.byteLength +
        (m.itemItem ? m.itemItem.rowStart.byteLength + m.itemItem.neighbours.byteLength + m.itemItem.weights.byteLength : 0) +
        (m.userTop ? m.userTop.items.byteLength + m.userTop.scores.byteLength + m.userTop.counts.byteLength + m.userTop.tailScales.byteLength : 0)
      : 0;
    return {
      items: index.catalog.size,
      users: index.people.ids.size,
      indexBytes: index.people.history.bytes + index.people.earlier.bytes + modelBytes,
      attributeTokens: index.catalog.tokens.tokenCount,
      attributeBytes: index.catalog.attributeBytes,
      model: m && { trainedAt: m.trainedAt, trainingMs: m.trainingMs, factors: m.params.factors },
    };
  }
}

/** Records applied between two steps of applySteps: 1–2 ms of work for items with a few attributes… */
const RECORDS_PER_STEP = 100;
/** …or fewer, once a step has taken this long: a step is the unit the thread's scheduler cannot split. */
const STEP_MS = 1;

function drain(steps: Iterator<void>): void {
  while (!steps.next().done) {
    // each step applies its records
  }
}
