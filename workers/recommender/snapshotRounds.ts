import { log } from "../../src/wire/log.js";
import type { FromShard } from "../../src/wire/shardMessages.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { SnapshotWriter } from "../index/snapshotBytes.js";
import { committedBefore, type XidSnapshot } from "../../src/wire/xidSnapshot.js";
import { sha256 } from "../index/snapshotBytes.js";
import { moveSnapshots, writeSnapshot } from "./snapshotStore.js";

export interface SnapshotRoundsOptions {
  databaseUrl: string;
  shard: number;
  /** INDEX_SNAPSHOT_MIN_EVENTS */
  minEvents: number;
  orgs: () => Iterable<OrgIndex>;
  /** When the full load an organisation's index descends from began (seconds, the database's clock). */
  lineageAtS: (org: number) => number;
  /** Runs `steps` as a job of the batch queue: no batch is applied until it is done, requests are answered between steps. */
  queue: (steps: Iterator<void>, done: () => void) => void;
  report: (m: FromShard) => void;
}

interface Copied {
  org: number;
  applied: number;
  parts: Buffer[];
  bytes: number;
  sha256: string;
  copyMs: number;
}

/** An organisation's latest stored snapshot, as this thread knows it. */
export interface Snapshotted {
  id: string;
  /** The index's `applied` it was copied at (0 for an organisation the thread holds nothing of: an empty snapshot). */
  applied: number;
}

/**
 * Snapshot rounds of one recommender thread (docs/operations.md, Snapshots). The front thread starts a round at a
 * position every batch before which was sent before it, and none after (src/recommend/indexSnapshots.ts). The
 * round copies each organisation that changed since its last snapshot, as one job of the batch queue (so the
 * copies are of that position: batches wait, requests are answered between 4 MiB steps), then stores them one by
 * one from another connection while the thread goes on. An organisation that has not changed keeps its snapshot,
 * moved to the new position (the same index, and nothing of it committed in between: its replay after a restart
 * reads only what came since this round). One the thread holds nothing of gets an empty snapshot, so that a load
 * has no organisation left to look for in all of `events` (which has no index by organisation). A round that
 * starts while the last one still writes is skipped: the next takes its changes.
 */
export class SnapshotRounds {
  private writing = false;
  private readonly snapshotted = new Map<number, Snapshotted>();
  /** Organisations whose load (this lineage) a retention round has outlived: no snapshot of them is usable, none is copied. */
  private readonly outlived = new Map<number, number>();

  constructor(private readonly opts: SnapshotRoundsOptions) {}

  /** What the load restored: those not changed since are moved to the next position rather than written again. */
  restored(org: number, s: Snapshotted): void {
    this.snapshotted.set(org, s);
  }

  /**
   * `owned`: every organisation of this thread (empty ones included); `extraXids`: other processes' transactions
   * applied though past the position (CLUSTER=1); `fresh`: organisations another process stored lately, skipped.
   */
  round(position: string, takenAtS: number, owned: readonly number[], extraXids: string[] = [], fresh: ReadonlySet<number> = new Set()): void {
    if (this.writing) return;
    const held = new Map([...this.opts.orgs()].map((i) => [i.org, i]));
    const due: OrgIndex[] = [];
    const empty: number[] = [];
    const moved: string[] = [];
    for (const org of new Set([...owned, ...held.keys()])) {
      if (fresh.has(org)) continue;
      if (this.outlived.get(org) === this.opts.lineageAtS(org)) continue;
      const index = held.get(org);
      const last = this.snapshotted.get(org);
      const applied = index?.applied ?? 0;
      if (last && last.applied === applied) moved.push(last.id);
      else if (!index) empty.push(org);
      else if (applied >= this.opts.minEvents || applied === 0) due.push(index);
    }
    this.writing = true;
    const copied: Copied[] = [];
    const steps = (function* (): Generator<void, void> {
      for (const index of due) {
        let busy = 0;
        const w = new SnapshotWriter();
        index.snapshotTo(w);
        const copy = w.copy();
        for (;;) {
          const stepStarted = performance.now();
          const next = copy.next();
          busy += performance.now() - stepStarted;
          if (next.done) {
            copied.push({ org: index.org, applied: index.applied, ...next.value, copyMs: Math.round(busy) });
            break;
          }
          yield;
        }
      }
    })();
    this.opts.queue(steps, () => {
      for (const org of empty) copied.push({ org, applied: 0, parts: [], bytes: 0, sha256: EMPTY_SHA256, copyMs: 0 });
      this.store(copied, moved, position, takenAtS, extraXids)
        .catch((err: Error) => log.error("index snapshots not stored", { shard: this.opts.shard, error: err.message }))
        .finally(() => (this.writing = false));
    });
  }

  private async store(copied: Copied[], moved: string[], position: string, takenAtS: number, extraXids: string[]): Promise<void> {
    if (moved.length > 0) {
      const done = await moveSnapshots(this.opts.databaseUrl, this.opts.shard, moved, position, takenAtS, extraXids);
      // Deleted meanwhile (an erasure's or a retention round's fence): the next round writes them anew.
      const asked = new Set(moved);
      for (const [org, s] of this.snapshotted) if (asked.has(s.id) && !done.has(s.id)) this.snapshotted.delete(org);
    }
    for (const c of copied) {
      const { org } = c;
      const started = performance.now();
      let outcome: "written" | "fenced" | "failed";
      try {
        const written = await writeSnapshot(
          this.opts.databaseUrl,
          this.opts.shard,
          { org, position, takenAtS, lineageAtS: this.opts.lineageAtS(org), events: c.applied, extraXids },
          c.parts,
          c.bytes,
          c.sha256,
        );
        outcome = written.outcome;
        if (written.id !== undefined) this.snapshotted.set(org, { id: written.id, applied: c.applied });
        if (written.outlived) {
          this.outlived.set(org, this.opts.lineageAtS(org));
          log.info("index snapshots stop until the organisation is loaded again: its load predates a retention drop", {
            shard: this.opts.shard,
            org,
          });
        }
      } catch (err) {
        outcome = "failed";
        log.error("index snapshot not stored", { shard: this.opts.shard, org, error: (err as Error).message });
      }
      const writeMs = Math.round(performance.now() - started);
      c.parts.length = 0;
      if (c.bytes === 0 && outcome === "written") continue; // an empty one: not worth a line or a metric
      log.info("index snapshot", { shard: this.opts.shard, org, outcome, bytes: c.bytes, copyMs: c.copyMs, writeMs });
      this.opts.report({ t: "snapshotWritten", outcome, org, bytes: c.bytes, copyMs: c.copyMs, writeMs });
    }
  }
}

const EMPTY_SHA256 = sha256([]);

/** How many of the other processes' batch transactions are remembered: far more than arrive in one read of the batch log. */
const RECENT_XIDS = 16_384;

/**
 * CLUSTER=1: the transactions of the other processes' batches this thread applied lately. The batch log's read
 * that publishes everything committed before a snapshot's position may also bring batches committed after it;
 * the snapshot names those (they are in the index, so the replay after it must not count them again).
 */
export class RecentXids {
  private readonly ring: bigint[] = [];
  private next = 0;

  add(xid: bigint): void {
    if (this.ring.length < RECENT_XIDS) this.ring.push(xid);
    else this.ring[this.next] = xid;
    this.next = (this.next + 1) % RECENT_XIDS;
  }

  /** Those the position does not hold as committed. */
  after(position: XidSnapshot): string[] {
    return this.ring.filter((x) => !committedBefore(position, x)).map(String);
  }
}
