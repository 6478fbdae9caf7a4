import type { RankResult } from "../wire/rank.js";

/**
 * How long the front thread reuses a shared answer (see sharedAnswerKey) without asking the shard. With the
 * shard's own reuse of at most 100 ms, new data still shows within a fifth of a second.
 */
const SHARED_TTL_MS = 100;
/** Distinct shared answers kept at most (organisations × strategies × pages); beyond, the oldest half goes. */
const ENTRIES_MAX = 10_000;

interface Entry {
  result: RankResult;
  until: number;
}

/** Answers every request with the same sharedAnswerKey would get: busy widgets then cost no thread hop. */
export class SharedAnswers {
  private readonly entries = new Map<string, Entry>();

  get(key: string, now = performance.now()): RankResult | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.until > now) return e.result;
    this.entries.delete(key);
    return undefined;
  }

  clear(): void {
    this.entries.clear();
  }

  set(key: string, result: RankResult, now = performance.now()): void {
    if (this.entries.size >= ENTRIES_MAX) {
      let drop = ENTRIES_MAX / 2;
      for (const k of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(k);
      }
    }
    this.entries.delete(key);
    this.entries.set(key, { result, until: now + SHARED_TTL_MS });
  }
}
