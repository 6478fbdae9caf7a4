import { log } from "../../src/wire/log.js";

export type RecordKind = "alias" | "item" | "user" | "event" | "batch";

interface OrgSkips {
  count: number;
  kind: RecordKind;
  position: number;
  error: string;
}

/**
 * Records a shard could not apply, gathered over one batch (or one load) and logged once per organisation:
 * one organisation's bad data is skipped, never fatal to the thread that also serves the others, and a batch
 * of ten thousand bad records makes one log line, not ten thousand.
 */
export class Skips {
  private readonly byOrg = new Map<number, OrgSkips>();
  private count = 0;

  /** `org` is -1 when the record could not even be read far enough to know it. */
  add(org: number, kind: RecordKind, position: number, err: unknown): void {
    this.count++;
    const seen = this.byOrg.get(org);
    if (seen) seen.count++;
    else this.byOrg.set(org, { count: 1, kind, position, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }

  /** Logs what was gathered (`context` says where: the shard, a batch or the load) and clears it; returns how many were skipped. */
  flush(context: Record<string, unknown>): number {
    const n = this.count;
    for (const [org, s] of this.byOrg) {
      log.error("recommender skipped records it could not apply", {
        ...context,
        org: org < 0 ? "unknown" : org,
        records: s.count,
        first: { kind: s.kind, position: s.position },
        error: s.error,
      });
    }
    this.byOrg.clear();
    this.count = 0;
    return n;
  }
}
