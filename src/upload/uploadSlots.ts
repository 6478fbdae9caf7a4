import { appError } from "../errors.js";

/** A client refused a slot is told to try again after this long: uploads last seconds to minutes. */
const RETRY_AFTER_S = 5;

/**
 * How many uploads run at once, per organisation and in the process. Each one holds body chunks, parses on
 * the front thread a slice per turn and keeps commits in flight, so without a bound one organisation could
 * take every writer and most of the front thread with uploads.
 * Beyond the organisation's share: 429 rate_limited (its own uploads are the cause, and it can wait for them);
 * beyond the process's: 503 unavailable (the server is busy, whoever the caller is).
 */
export class UploadSlots {
  private readonly byOrg = new Map<string, number>();
  private running = 0;

  constructor(
    private readonly perOrg: number,
    private readonly perProcess: number,
  ) {}

  /** Takes a slot for the organisation, or throws; the returned function gives it back (once). */
  acquire(orgId: string): () => void {
    const mine = this.byOrg.get(orgId) ?? 0;
    const retry = { "Retry-After": String(RETRY_AFTER_S) };
    if (mine >= this.perOrg) {
      throw appError("rate_limited", "uploads", { running: mine, max: this.perOrg }, retry);
    }
    if (this.running >= this.perProcess) {
      throw appError("unavailable", "uploads", { running: this.running }, retry);
    }
    this.byOrg.set(orgId, mine + 1);
    this.running++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.running--;
      const left = (this.byOrg.get(orgId) ?? 1) - 1;
      if (left === 0) this.byOrg.delete(orgId);
      else this.byOrg.set(orgId, left);
    };
  }
}
