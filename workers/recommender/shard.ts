import type { BatchPayload } from "../../src/ingest/rows.js";
import type { OrgStats } from "../../src/recommend/protocol.js";
import type { RankRequest, RankResult } from "../../src/recommend/schema.js";
import { unpackBatch } from "../../src/ingest/batchPack.js";
import { OrgIndex } from "../index/orgIndex.js";
import { eachPackedEvent, FAMILY } from "../index/packedEvents.js";
import { rank } from "../strategies/index.js";

/** The organisations one recommender thread owns (org seq modulo the number of shards) and their indexes. */
export class Shard {
  private readonly orgs = new Map<number, OrgIndex>();

  org(org: number): OrgIndex {
    let index = this.orgs.get(org);
    if (!index) this.orgs.set(org, (index = new OrgIndex(org)));
    return index;
  }

  all(): Iterable<OrgIndex> {
    return this.orgs.values();
  }

  rank(req: RankRequest): RankResult {
    return rank(this.org(req.org), req);
  }

  /**
   * A committed ingest batch: the records of the organisations `owns` says are this shard's, items and users
   * first so that events in the same batch see them; events at `notStored` (already held) are not counted again.
   */
  apply(batch: BatchPayload, notStored: readonly number[] | null, owns: (org: number) => boolean): void {
    for (const [org, id, type, status, attributes, createdAt] of batch.items) {
      if (!owns(org)) continue;
      this.org(org).upsertItem(id, type, status, (attributes ?? {}) as Record<string, unknown>, createdAt === null ? null : Date.parse(createdAt) / 1000);
    }
    for (const [org, id, status] of batch.users) if (owns(org)) this.org(org).upsertUser(id, status);
    const skip = notStored && notStored.length > 0 ? new Set(notStored) : undefined;
    const nowS = Date.now() / 1000;
    let lastText = "";
    let lastS = 0;
    const { events } = batch;
    for (let i = 0; i < events.length; i++) {
      const [org, , userId, itemId, family, name, weight, previousUserId, , , occurredAt] = events[i]!;
      if (family === "exposure" || !owns(org) || skip?.has(i)) continue;
      // Events stamped at receipt share their time text: parse it once.
      if (occurredAt !== lastText) {
        lastText = occurredAt;
        lastS = Date.parse(occurredAt) / 1000;
      }
      this.org(org).applyEvent({ userId, itemId, family, name, weight, previousUserId, atS: lastS }, nowS);
    }
  }

  /**
   * apply() for a batch as packBatch made it, its events read in place (index/packedEvents.ts) unless it also
   * holds items or users.
   */
  applyPacked(packed: Uint8Array, notStored: readonly number[] | null, owns: (org: number) => boolean): void {
    const skip = notStored && notStored.length > 0 ? new Set(notStored) : undefined;
    const nowS = Date.now() / 1000;
    const inPlace = eachPackedEvent(packed, (e) => {
      if (e.family !== FAMILY.exposure && owns(e.org) && !skip?.has(e.position)) this.org(e.org).applyPackedEvent(e, nowS);
    });
    if (!inPlace) this.apply(unpackBatch(packed), notStored, owns);
  }

  stats(org: number): OrgStats | undefined {
    const index = this.orgs.get(org);
    if (!index) return undefined;
    const m = index.model;
    const modelBytes = m ? m.itemCodes.byteLength + m.itemScales.byteLength * 2 + m.rowOf.byteLength * 2 + m.userVectors.byteLength + m.itemGram.byteLength : 0;
    return {
      items: index.catalog.size,
      users: index.people.ids.size,
      indexBytes: index.people.history.bytes + modelBytes,
      model: m && { trainedAt: m.trainedAt, trainingMs: m.trainingMs, factors: m.params.factors },
    };
  }
}
