import type { TrackedEvent } from "./types.js";
import { keysWithPrefix, readJson, type KeyValueStore } from "./storage.js";

/** A tab whose key has not been written for this long is taken for gone (crashed, or killed without a pagehide). */
export const STALE_MS = 5 * 60_000;
/** How often a tab with queued events rewrites its key to show it is alive, and at most how often it looks for orphans. */
export const REFRESH_MS = STALE_MS / 3;

/** One tab's key. `closed` comes first, so a listener can tell a closed tab's write from its first characters. */
interface Stored {
  closed?: true;
  at: number;
  events: readonly TrackedEvent[];
}

const isEventList = (v: unknown): v is TrackedEvent[] =>
  Array.isArray(v) && v.every((e) => typeof e === "object" && e !== null && typeof (e as TrackedEvent).event_id === "string");
const isStored = (v: unknown): v is Stored =>
  typeof v === "object" && v !== null && typeof (v as Stored).at === "number" && isEventList((v as Stored).events);

/** Whether a stored value is the key of a tab that was closed (written by `close()` then a save). */
export const isClosedQueue = (value: string | null): boolean => value?.startsWith('{"closed":true') === true;

/** Keys of gone tabs and their events: remove the keys (`release`) only once the events are saved under this tab's key. */
export interface Orphans {
  keys: string[];
  events: TrackedEvent[];
}

/**
 * This tab's queue as kept in storage, so events outlive a closed tab or a reload. Each client instance writes
 * only its own key, `<prefix>:queue:<id>`: a Chromium tab sees other tabs' writes late, so a save that merged
 * into a shared key could erase another tab's events. Keys of closed tabs (marked on pagehide), of tabs silent
 * for STALE_MS and the shared key of earlier versions are adopted by a live tab. A live tab taken for gone (its
 * timers throttled in the background) then has its events sent twice: the service stores an event_id once.
 */
export class PersistedQueue {
  private readonly key: string;
  private readonly legacyKey: string;
  private closed = false;
  private writtenAt = -Infinity;
  private sweptAt = -Infinity;

  constructor(
    private readonly store: KeyValueStore,
    prefix: string,
    id: string,
  ) {
    this.legacyKey = `${prefix}:queue`;
    this.key = `${this.legacyKey}:${id}`;
  }

  /** Writes this tab's queue (an empty one removes its key); answers how many events were left out to fit the quota. */
  save(events: readonly TrackedEvent[], now = Date.now()): number {
    let kept = events;
    for (;;) {
      try {
        if (kept.length === 0) this.store.removeItem(this.key);
        else this.store.setItem(this.key, JSON.stringify(this.record(kept, now)));
        this.writtenAt = now;
        return events.length - kept.length;
      } catch (err) {
        // Over the storage quota: give up the oldest half and try again; with nothing left the error is real.
        if (kept.length === 0) throw err;
        kept = kept.slice(Math.ceil(kept.length / 2));
      }
    }
  }

  /** The page is left: later saves mark the key closed, for the next page or another tab to adopt at once. */
  close(): void {
    this.closed = true;
  }

  /** The page is back (from the back-forward cache): later saves mark the key live again. */
  reopen(): void {
    this.closed = false;
  }

  /** Whether a tab with queued events should rewrite its key now, so that other tabs do not take it for gone. */
  needsRefresh(now = Date.now()): boolean {
    return now - this.writtenAt >= REFRESH_MS;
  }

  /** Other tabs' keys that are closed or stale, and the shared key of earlier versions; none if it looked within REFRESH_MS, unless `force`. */
  orphans(force: boolean, now = Date.now()): Orphans {
    const found: Orphans = { keys: [], events: [] };
    if (!force && now - this.sweptAt < REFRESH_MS) return found;
    this.sweptAt = now;
    const adopt = (key: string, events: readonly TrackedEvent[]) => {
      found.keys.push(key);
      found.events.push(...events);
    };
    const legacy = readJson(this.store, this.legacyKey, isEventList);
    if (legacy) adopt(this.legacyKey, legacy);
    for (const key of keysWithPrefix(this.store, `${this.legacyKey}:`)) {
      const v = key === this.key ? undefined : readJson(this.store, key, isStored);
      // A clock put back or forward makes a key look stale either way: adopted, its events are at worst sent twice.
      if (v && (v.closed || Math.abs(now - v.at) > STALE_MS)) adopt(key, v.events);
    }
    return found;
  }

  /** Removes adopted keys: only after their events were saved under this tab's key. */
  release(keys: readonly string[]): void {
    for (const key of keys) this.store.removeItem(key);
  }

  private record(events: readonly TrackedEvent[], at: number): Stored {
    return this.closed ? { closed: true, at, events } : { at, events };
  }
}
