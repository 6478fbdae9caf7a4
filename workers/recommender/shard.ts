import type { BatchPayload } from "../../src/wire/batchRows.js";
import type { OrgStats, ShardSizes } from "../../src/wire/shardMessages.js";
import type { RankRequest, RankResult } from "../../src/wire/rank.js";
import { unpackBatch } from "../../src/wire/batchPack.js";
import { FAMILY } from "../../src/wire/eventFamily.js";
import { PackedEvents } from "../../src/wire/packedEvents.js";
import { TimeText } from "../../src/wire/timeText.js";
import { type AttributeCaps, UNCAPPED } from "../index/attributeCaps.js";
import { epochSeconds, IndexEvent } from "../index/indexEvent.js";
import { OrgIndex } from "../index/orgIndex.js";
import { DEFAULT_USER_LIMITS, type UserLimits } from "../../src/wire/userLimits.js";
import { rank } from "../strategies/rank.js";
import { explainRank } from "../strategies/explain.js";
import type { Explanation } from "../../src/wire/explanation.js";
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

  /** The preview's ranking and its explanation (workers/strategies/explain.ts). */
  explain(req: RankRequest): { result: RankResult; explanation: Explanation } {
    return explainRank(this.org(req.org), req);
  }

  /**
   * A committed ingest batch, unpacked: the records of the organisations `owns` says are this shard's, items and
   * users first so that events in the same batch see them; events at `notStored` (already held) are not counted
   * again. A record that throws is skipped (see Skips).
   */
  apply(batch: BatchPayload, notStored: readonly number[] | null, owns: (org: number) => boolean): void {
    const steps = new Steps();
    drain(this.applyRecords(batch, owns, steps));
    drain(this.applyEventRows(batch, 0, notStored, owns, steps));
  }

  /** applyPackedSteps() at once. */
  applyPacked(packed: Uint8Array, notStored: readonly number[] | null, owns: (org: number) => boolean): void {
    drain(this.applyPackedSteps(packed, notStored, owns));
  }

  /**
   * apply() for a batch as packBatch made it, in steps of at most RECORDS_PER_STEP records or STEP_MS: the caller
   * may answer requests between them. Its events are read in place (src/wire/packedEvents.ts), all in one step
   * when the batch holds nothing else (events are cheap to apply); its items and users, when it holds some, are
   * unpacked and applied first, and then every record counts towards the steps (a chunk of items applied in one
   * go would hold the shard for too long: docs/recommender.md, "Fair shares of a thread"). Bytes the in-place
   * reader cannot follow (a reader bug) are read by msgpackr instead, from the first event not applied yet.
   */
  *applyPackedSteps(packed: Uint8Array, notStored: readonly number[] | null, owns: (org: number) => boolean): Generator<void, void> {
    const reader = new PackedEvents(packed);
    let readable = true;
    try {
      reader.open();
    } catch (err) {
      readable = false;
      cannotRead(0, err);
    }
    let batch: BatchPayload | undefined;
    let steps: Steps | undefined;
    if (!readable || !reader.onlyEvents) {
      try {
        batch = unpackBatch(packed);
      } catch (err) {
        // Its records are in PostgreSQL all the same: the index has them back at the shard's next load.
        this.skips.add(-1, "batch", 0, err);
        return;
      }
      steps = new Steps();
      yield* this.applyRecords(batch, owns, steps);
    }
    let next = 0;
    if (readable) {
      const skip = notStored && notStored.length > 0 ? new Set(notStored) : undefined;
      const nowS = Date.now() / 1000;
      const event = new IndexEvent();
      const times = new TimeText(epochSeconds);
      try {
        while (reader.next()) {
          const e = event.fromPacked(reader, times);
          const { org, position } = reader;
          next = position + 1;
          if (e.family === FAMILY.exposure || !owns(org) || skip?.has(position)) continue;
          try {
            this.org(org).applyEvent(e, nowS);
          } catch (err) {
            this.skips.add(org, "event", position, err);
          }
          if (steps?.over()) {
            yield;
            steps.start();
          }
        }
        return;
      } catch (err) {
        cannotRead(next, err);
      }
      try {
        batch ??= unpackBatch(packed);
      } catch (err) {
        this.skips.add(-1, "batch", next, err);
        return;
      }
    }
    yield* this.applyEventRows(batch!, next, notStored, owns, steps ?? new Steps());
  }

  /** The batch's items, then its users, each counted as a record of the steps. */
  private *applyRecords(batch: BatchPayload, owns: (org: number) => boolean, steps: Steps): Generator<void, void> {
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
      if (steps.over()) {
        yield;
        steps.start();
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
      if (steps.over()) {
        yield;
        steps.start();
      }
    }
  }

  /**
   * The batch's events from `fromEvent` on, from the unpacked tuples: what the in-place reader could not follow
   * (and tests' reference). Each time text is parsed: this path is the exception, not worth a cache.
   */
  private *applyEventRows(
    batch: BatchPayload,
    fromEvent: number,
    notStored: readonly number[] | null,
    owns: (org: number) => boolean,
    steps: Steps,
  ): Generator<void, void> {
    const skip = notStored && notStored.length > 0 ? new Set(notStored) : undefined;
    const nowS = Date.now() / 1000;
    const event = new IndexEvent();
    const { events } = batch;
    for (let i = fromEvent; i < events.length; i++) {
      const [org, , userId, itemId, family, name, weight, previousUserId, , , occurredAt] = events[i]!;
      if (family === "exposure" || !owns(org) || skip?.has(i)) continue;
      try {
        this.org(org).applyEvent(event.fromText(userId, itemId, family, name, weight, previousUserId, Date.parse(occurredAt) / 1000), nowS);
      } catch (err) {
        this.skips.add(org, "event", i, err);
      }
      if (steps.over()) {
        yield;
        steps.start();
      }
    }
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

/** Records applied between two steps of applyPackedSteps: a millisecond or two of work for items with a few attributes… */
const RECORDS_PER_STEP = 100;
/** …or fewer, once a step has taken this long: a step is the unit the thread's scheduler cannot split. */
const STEP_MS = 1;

/** Whether a step is over: RECORDS_PER_STEP records, or STEP_MS of them when records are costly (long attributes). */
class Steps {
  private n = 0;
  private endsAt = performance.now() + STEP_MS;

  /** Counts a record; true when the step ends with it. */
  over(): boolean {
    if (++this.n % RECORDS_PER_STEP !== 0 && performance.now() < this.endsAt) return false;
    this.n = 0;
    return true;
  }

  /** The next step starts (its time counts from now, once the caller has had its turn). */
  start(): void {
    this.endsAt = performance.now() + STEP_MS;
  }
}

function cannotRead(event: number, err: unknown): void {
  log.error("a committed batch could not be read in place; reading it unpacked", { event, error: (err as Error).stack });
}

function drain(steps: Iterator<void>): void {
  while (!steps.next().done) {
    // each step applies its records
  }
}
