import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RecommendationServiceError, type TrackedEvent } from "../../src/client/index.js";
import { PersistedQueue, REFRESH_MS, STALE_MS } from "../../src/client/persistedQueue.js";
import { EventQueue } from "../../src/client/queue.js";
import { MemoryStore, type KeyValueStore } from "../../src/client/storage.js";

/** An enumerable store, as localStorage is, that notes every write and removal in order. */
class NotingStore extends MemoryStore {
  readonly writes: string[] = [];
  override setItem(key: string, value: string): void {
    this.writes.push(`set ${key}`);
    super.setItem(key, value);
  }
  override removeItem(key: string): void {
    this.writes.push(`remove ${key}`);
    super.removeItem(key);
  }
}

/** A store that takes values up to `maxChars` long only, as a full localStorage refuses a write. */
class SmallStore extends MemoryStore {
  constructor(private readonly maxChars: number) {
    super();
  }
  override setItem(key: string, value: string): void {
    if (value.length > this.maxChars) throw new DOMException("quota exceeded", "QuotaExceededError");
    super.setItem(key, value);
  }
}

const event = (id: string): TrackedEvent => ({ event_name: "view", event_family: "engagement", user_id: "u1", item_id: "i1", event_id: id });
const ids = (events: readonly TrackedEvent[]) => events.map((e) => e.event_id).sort();
/** Another tab's key as it would have written it. */
const tabKey = (store: KeyValueStore, id: string, record: { closed?: true; at: number; events: TrackedEvent[] }) =>
  store.setItem(`recsvc:queue:${id}`, JSON.stringify(record));
const stored = (store: KeyValueStore, key = "recsvc:queue:mine") =>
  JSON.parse(store.getItem(key) ?? "null") as { closed?: true; at: number; events: TrackedEvent[] } | null;

/** This tab's queue on `store`, whose sends fail as with the service down unless `up` (every send is noted). */
function tab(store: KeyValueStore, { up = false, ...options }: { maxQueueSize?: number; up?: boolean } = {}) {
  const sent: TrackedEvent[][] = [];
  const queue = new EventQueue(
    {
      batchSize: 100,
      maxBatchBytes: 1 << 20,
      unloadBatchBytes: 64_000,
      flushIntervalMs: 1_000,
      maxQueueSize: 1_000,
      backoff: { baseMs: 1_000, maxMs: 30_000 },
      ...options,
    },
    {
      send: (body) => {
        sent.push(JSON.parse(body) as TrackedEvent[]);
        if (up) return Promise.resolve();
        return Promise.reject(new RecommendationServiceError("network_error", "connection refused", 0));
      },
      onError: () => undefined,
      random: () => 0.5,
    },
    new PersistedQueue(store, "recsvc", "mine"),
  );
  return { queue, sent };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 10 * STALE_MS });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a tab's queue in a store other tabs share", () => {
  it("writes its events under its own key only, and removes the key when its queue is empty", async () => {
    const store = new MemoryStore();
    tabKey(store, "other", { at: Date.now(), events: [event("theirs")] });
    const { queue, sent } = tab(store, { up: true });
    queue.push(event("a"));
    await vi.advanceTimersByTimeAsync(0);
    expect(ids(stored(store)!.events)).toEqual(["a"]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent.map(ids)).toEqual([["a"]]);
    expect(store.getItem("recsvc:queue:mine")).toBeNull();
    expect(ids(stored(store, "recsvc:queue:other")!.events)).toEqual(["theirs"]);
  });

  it("adopts a tab's key not written for STALE_MS, saving its events under its own key before removing it", () => {
    const store = new NotingStore();
    tabKey(store, "gone", { at: Date.now() - STALE_MS - 1, events: [event("x"), event("y")] });
    const { queue } = tab(store);
    expect(queue.size).toBe(2);
    expect(ids(stored(store)!.events)).toEqual(["x", "y"]);
    expect(store.getItem("recsvc:queue:gone")).toBeNull();
    expect(store.writes.slice(1)).toEqual(["set recsvc:queue:mine", "remove recsvc:queue:gone"]);
  });

  it("leaves a live tab's key alone", () => {
    const store = new MemoryStore();
    tabKey(store, "live", { at: Date.now() - STALE_MS + 1_000, events: [event("x")] });
    const { queue } = tab(store);
    expect(queue.size).toBe(0);
    expect(ids(stored(store, "recsvc:queue:live")!.events)).toEqual(["x"]);
  });

  it("adopts a closed tab's key at once, however recently written", () => {
    const store = new MemoryStore();
    tabKey(store, "closed", { closed: true, at: Date.now(), events: [event("x")] });
    expect(tab(store).queue.size).toBe(1);
    expect(store.getItem("recsvc:queue:closed")).toBeNull();
  });

  it("adopts the shared key of earlier versions, even from a store that cannot enumerate its keys", () => {
    const map = new Map<string, string>([["recsvc:queue", JSON.stringify([event("old-1"), event("old-2")])]]);
    const store: KeyValueStore = {
      getItem: (key) => map.get(key) ?? null,
      setItem: (key, value) => void map.set(key, value),
      removeItem: (key) => void map.delete(key),
    };
    expect(tab(store).queue.size).toBe(2);
    expect([...map.keys()]).toEqual(["recsvc:queue:mine"]);
  });

  it("takes each event_id once when several keys hold it", () => {
    const store = new MemoryStore();
    store.setItem("recsvc:queue", JSON.stringify([event("x")]));
    tabKey(store, "closed", { closed: true, at: Date.now(), events: [event("x"), event("y")] });
    const { queue } = tab(store);
    expect(queue.size).toBe(2);
    expect(ids(stored(store)!.events)).toEqual(["x", "y"]);
  });

  it("looks again for gone tabs while it sends, not only at start", async () => {
    const store = new MemoryStore();
    const { queue, sent } = tab(store);
    queue.push(event("mine"));
    tabKey(store, "quiet", { at: Date.now(), events: [event("theirs")] });
    await vi.advanceTimersByTimeAsync(STALE_MS + REFRESH_MS + 60_000);
    expect(store.getItem("recsvc:queue:quiet")).toBeNull();
    expect(ids(sent.at(-1)!)).toEqual(["mine", "theirs"]);
    expect(ids(stored(store)!.events)).toEqual(["mine", "theirs"]);
  });

  it("rewrites its key at least every REFRESH_MS while its events wait, so no other tab takes it for gone", async () => {
    const store = new MemoryStore();
    const { queue } = tab(store);
    queue.push(event("a"));
    let oldest = 0;
    for (let t = 0; t < 4 * STALE_MS; t += 5_000) {
      await vi.advanceTimersByTimeAsync(5_000);
      oldest = Math.max(oldest, Date.now() - stored(store)!.at);
    }
    expect(oldest).toBeLessThan(REFRESH_MS + 30_000);
    expect(new PersistedQueue(store, "recsvc", "other").orphans(true).keys).toEqual([]);
  });

  it("marks its key closed when the page is left, and live again when the page comes back from the back-forward cache", () => {
    const store = new MemoryStore();
    const { queue } = tab(store);
    queue.push(event("a"));
    queue.leave(false);
    expect(stored(store)).toMatchObject({ closed: true, events: [{ event_id: "a" }] });
    expect(new PersistedQueue(store, "recsvc", "next").orphans(true).keys).toEqual(["recsvc:queue:mine"]);
    queue.back();
    expect(stored(store)?.closed).toBeUndefined();
    expect(new PersistedQueue(store, "recsvc", "next").orphans(true).keys).toEqual([]);
  });

  it("keeps to maxQueueSize with adopted events, dropping the oldest and counting them", () => {
    const store = new MemoryStore();
    tabKey(store, "closed", { closed: true, at: Date.now(), events: ["x1", "x2", "x3", "x4", "x5"].map(event) });
    const { queue } = tab(store, { maxQueueSize: 3 });
    expect(queue.size).toBe(3);
    expect(queue.dropped).toBe(2);
    expect(ids(stored(store)!.events)).toEqual(["x3", "x4", "x5"]);
  });

  it("keeps to the storage quota by storing the newest half again, counting what it left out", async () => {
    const store = new SmallStore(1_000);
    const { queue } = tab(store);
    for (let i = 0; i < 20; i++) queue.push(event(`e${String(i).padStart(2, "0")}`));
    await vi.advanceTimersByTimeAsync(0);
    const kept = ids(stored(store)!.events);
    expect(kept.length).toBeLessThan(20);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `e${String(20 - kept.length + i).padStart(2, "0")}`));
    expect(queue.dropped).toBe(20 - kept.length);
    expect(queue.size).toBe(20);
  });
});
