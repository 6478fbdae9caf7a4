import { packr, type ToShard } from "../../src/recommend/protocol.js";

type Phase = "before-snapshot" | "loading" | "open";

/**
 * A shard's messages while it loads. Until the load's snapshot is taken, committed batches are dropped (the
 * snapshot holds them); after it, messages wait until the index is built, then are handled in order.
 */
export class Inbox {
  private phase: Phase = "before-snapshot";
  private waiting: Uint8Array[] = [];

  constructor(private readonly receive: (raw: Uint8Array) => void) {}

  take(raw: Uint8Array): void {
    if (this.phase === "open") this.receive(raw);
    else if (this.phase === "loading" || !isBatch(raw)) this.waiting.push(raw);
  }

  /** Called just before the load's first query: batches from now on may be newer than its snapshot. */
  snapshotTaken(): void {
    if (this.phase === "before-snapshot") this.phase = "loading";
  }

  open(): void {
    this.phase = "open";
    const waiting = this.waiting;
    this.waiting = [];
    for (const raw of waiting) this.receive(raw);
  }
}

function isBatch(raw: Uint8Array): boolean {
  try {
    return (packr.unpack(raw) as ToShard).t === "batch";
  } catch {
    return false; // handled (and logged) as any unreadable message once the shard is open
  }
}
