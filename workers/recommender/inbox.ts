import type { ToShard } from "../../src/wire/shardMessages.js";
import type { LoadProgress } from "./loadProgress.js";

/** Handles one message; `loaded` says which organisations a batch's records may be applied to. */
export type Handle = (m: ToShard, loaded: (org: number) => boolean) => void;

type Phase = "before-position" | "loading" | "open";

const ALL = (): boolean => true;

/**
 * A shard's messages while it loads. Until the load's snapshot is taken, committed batches are dropped: they
 * were committed before it, so the load reads them. After it, a batch is applied at once to the organisations
 * already read in full and kept for the others until the load ends. Erasures go the same way (one committed
 * before the snapshot is in what the load reads: it leaves the erasure's users out). Requests are handled at
 * once: the front thread sends them only for organisations the shard has said it has read.
 */
export class Inbox {
  private phase: Phase = "before-position";
  private waiting: Array<{ m: ToShard; mark: number }> = [];

  constructor(
    private readonly handle: Handle,
    private readonly progress: LoadProgress,
  ) {}

  take(m: ToShard): void {
    if (this.phase === "open" || (m.t !== "batch" && m.t !== "erase")) {
      this.handle(m, ALL);
    } else if (this.phase === "loading") {
      const mark = this.progress.mark;
      this.handle(m, (org) => this.progress.loadedAt(org, mark));
      this.waiting.push({ m, mark });
    }
  }

  positionTaken(): void {
    if (this.phase === "before-position") this.phase = "loading";
  }

  /** The load has ended: what waited is applied, in order, to the organisations it was not applied to. */
  open(): void {
    this.phase = "open";
    const waiting = this.waiting;
    this.waiting = [];
    for (const { m, mark } of waiting) this.handle(m, (org) => !this.progress.loadedAt(org, mark));
  }
}
