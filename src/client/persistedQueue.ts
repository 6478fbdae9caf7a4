import type { TrackedEvent } from "./types.js";
import { readJson, type KeyValueStore } from "./storage.js";

const DONE_REMEMBERED = 10_000;

const isEventList = (v: unknown): v is TrackedEvent[] =>
  Array.isArray(v) && v.every((e) => typeof e === "object" && e !== null && typeof (e as TrackedEvent).event_id === "string");

/**
 * The queue as kept in storage, so events outlive a closed tab or a reload. Tabs of one site share the store:
 * a save keeps what other tabs stored unless this tab saw it through (sent, or dropped), so no tab erases
 * another's unsent events; an event two tabs send is stored once, by its event_id.
 */
export class PersistedQueue {
  private readonly done = new Set<string>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly key: string,
    private readonly cap: number,
  ) {}

  load(): TrackedEvent[] {
    return readJson(this.store, this.key, isEventList) ?? [];
  }

  /** Marks events as seen through by this tab: a later save drops them even if another tab stored them. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      this.done.delete(id);
      this.done.add(id);
    }
    for (const id of this.done) {
      if (this.done.size <= DONE_REMEMBERED) break;
      this.done.delete(id);
    }
  }

  /** Writes this tab's queue with the other tabs' events; answers how many had to be dropped to fit. */
  save(ours: readonly TrackedEvent[]): number {
    const mine = new Set(ours.map((e) => e.event_id));
    const others = this.load().filter((e) => !mine.has(e.event_id) && !this.done.has(e.event_id));
    let all = others.concat(ours);
    let dropped = Math.max(0, all.length - this.cap);
    all = all.slice(dropped);
    for (;;) {
      try {
        if (all.length === 0) this.store.removeItem(this.key);
        else this.store.setItem(this.key, JSON.stringify(all));
        return dropped;
      } catch (err) {
        // Over the storage quota: give up the oldest half and try again; with nothing left the error is real.
        if (all.length === 0) throw err;
        const half = Math.ceil(all.length / 2);
        dropped += half;
        all = all.slice(half);
      }
    }
  }
}
