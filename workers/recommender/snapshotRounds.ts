import { log } from "../../src/wire/log.js";
import type { FromShard } from "../../src/wire/shardMessages.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { SnapshotWriter } from "../index/snapshotBytes.js";
import { writeSnapshot } from "./snapshotStore.js";

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
  index: OrgIndex;
  applied: number;
  parts: Buffer[];
  bytes: number;
  sha256: string;
  copyMs: number;
}

/**
 * Snapshot rounds of one recommender thread (docs/operations.md, Snapshots). The front thread starts a round at a
 * position every batch before which was sent before it, and none after (src/recommend/indexSnapshots.ts); the
 * round copies each organisation that changed since its last snapshot, as one job of the batch queue (so the
 * copies are of that position: batches wait, requests are answered between 4 MiB steps), then stores them one by
 * one from another connection while the thread goes on. A round that starts while the last one still writes is
 * skipped: the next takes its changes.
 */
export class SnapshotRounds {
  private writing = false;
  /** Per organisation, `applied` when its last snapshot was copied. */
  private readonly snapshotted = new Map<number, number>();

  constructor(private readonly opts: SnapshotRoundsOptions) {}

  round(position: string, takenAtS: number): void {
    if (this.writing) return;
    const due = [...this.opts.orgs()].filter((i) => i.applied >= this.opts.minEvents && i.applied !== this.snapshotted.get(i.org));
    if (due.length === 0) return;
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
            copied.push({ index, applied: index.applied, ...next.value, copyMs: Math.round(busy) });
            break;
          }
          yield;
        }
      }
    })();
    this.opts.queue(steps, () => {
      this.store(copied, position, takenAtS)
        .catch((err: Error) => log.error("index snapshots not stored", { shard: this.opts.shard, error: err.message }))
        .finally(() => (this.writing = false));
    });
  }

  private async store(copied: Copied[], position: string, takenAtS: number): Promise<void> {
    for (const c of copied) {
      const org = c.index.org;
      const started = performance.now();
      let outcome: "written" | "fenced" | "failed";
      try {
        outcome = await writeSnapshot(
          this.opts.databaseUrl,
          this.opts.shard,
          { org, position, takenAtS, lineageAtS: this.opts.lineageAtS(org), events: c.applied },
          c.parts,
          c.bytes,
          c.sha256,
        );
      } catch (err) {
        outcome = "failed";
        log.error("index snapshot not stored", { shard: this.opts.shard, org, error: (err as Error).message });
      }
      const writeMs = Math.round(performance.now() - started);
      if (outcome === "written") this.snapshotted.set(org, c.applied);
      c.parts.length = 0;
      log.info("index snapshot", { shard: this.opts.shard, org, outcome, bytes: c.bytes, copyMs: c.copyMs, writeMs });
      this.opts.report({ t: "snapshotWritten", outcome, org, bytes: c.bytes, copyMs: c.copyMs, writeMs });
    }
  }
}
