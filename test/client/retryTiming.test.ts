import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RecommendationClient, RecommendationServiceError, type ClientOptions, type TrackedEvent } from "../../src/client/index.js";
import { EventQueue } from "../../src/client/queue.js";
import { DEFAULT_BACKOFF } from "../../src/client/retry.js";
import { MemoryStore } from "../../src/client/storage.js";

/** One scripted answer of the service: a status, its envelope and headers. */
interface Scripted {
  status: number;
  error?: string;
  message?: string;
  headers?: Record<string, string>;
}

interface Sent {
  atMs: number;
  events: TrackedEvent[];
  keepalive: boolean;
}

/**
 * A client whose fetch answers from a script, in order (the last answer repeats), noting when each request
 * was made on the fake clock: retry timing is checked without waiting for it.
 */
function scriptedClient(script: Scripted[], options: Partial<ClientOptions> = {}) {
  const sent: Sent[] = [];
  const errors: RecommendationServiceError[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    sent.push({ atMs: Date.now(), events: JSON.parse(String(init!.body)) as TrackedEvent[], keepalive: init!.keepalive === true });
    const s = script[Math.min(sent.length - 1, script.length - 1)];
    const ok = s.status < 300;
    const body = ok
      ? { success: true, message: "accepted", data: { accepted: sent.at(-1)!.events.length }, error: null }
      : { success: false, message: s.message ?? `failed with ${s.status}`, error: s.error ?? "unavailable" };
    return new Response(JSON.stringify(body), { status: s.status, headers: s.headers });
  };
  const client = new RecommendationClient({
    baseUrl: "http://service.test",
    publishableKey: "svc_pk_test",
    storage: new MemoryStore(),
    flushIntervalMs: 1_000,
    backoff: { baseMs: 500, maxMs: 4_000 },
    fetch,
    onError: (err) => errors.push(err),
    ...options,
  });
  return { client, sent, errors };
}

const view = (i: number) => ({ event_name: "view", user_id: "u1", item_id: `item-${i}` });

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  vi.spyOn(Math, "random").mockReturnValue(0.5);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the client's queue on a fake clock", () => {
  it("holds a lone event until the flush interval, then sends it", async () => {
    const { client, sent } = scriptedClient([{ status: 202 }]);
    client.track(view(1));
    await vi.advanceTimersByTimeAsync(999);
    expect(sent).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.map((s) => s.events.length)).toEqual([1]);
  });

  it("sends at once when a batch fills (batchSize), and splits by bytes (maxBatchBytes)", async () => {
    const { client, sent } = scriptedClient([{ status: 202 }], { batchSize: 10, maxBatchBytes: 5 * 300 });
    for (let i = 0; i < 10; i++) client.track(view(i));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.flatMap((s) => s.events).length).toBe(10);
    for (const s of sent) expect(new TextEncoder().encode(JSON.stringify(s.events)).length).toBeLessThanOrEqual(5 * 300);
  });

  it("gives every event a UUID event_id and resends a failed batch under the same ids", async () => {
    const { client, sent } = scriptedClient([{ status: 503 }, { status: 202 }]);
    const e = client.track(view(1));
    expect(e.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sent.map((s) => s.events[0].event_id)).toEqual([e.event_id, e.event_id]);
  });

  it("waits out a 429's Retry-After (plus at most a tenth, capped at 1 s) before sending again", async () => {
    const { client, sent } = scriptedClient([{ status: 429, error: "rate_limited", headers: { "Retry-After": "7" } }, { status: 202 }]);
    client.track(view(1));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toHaveLength(1);
    // 7 s, and half (Math.random 0.5) of min(1 s, 0.7 s) of spread.
    await vi.advanceTimersByTimeAsync(7_349);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.map((s) => s.atMs)).toEqual([1_000, 8_350]);
  });

  it("reads RateLimit-Reset when a 429 has no Retry-After", async () => {
    const { client, sent } = scriptedClient([{ status: 429, error: "rate_limited", headers: { "RateLimit-Reset": "3" } }, { status: 202 }]);
    client.track(view(1));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(sent.map((s) => s.atMs)).toEqual([1_000, 1_000 + 3_000 + 150]);
  });

  it("backs off exponentially with full jitter after 5xx answers and lost connections, capped at maxMs", async () => {
    const script: Scripted[] = [{ status: 503 }, { status: 500 }, { status: 0 }, { status: 503 }, { status: 503 }, { status: 202 }];
    const { client, sent } = scriptedClient(script.map((s) => (s.status === 0 ? { status: 502 } : s)));
    client.track(view(1));
    await vi.advanceTimersByTimeAsync(60_000);
    const gaps = sent.slice(1).map((s, i) => s.atMs - sent[i].atMs);
    // A random draw of 0.5 over [0, min(4 s, 500 ms × 2^attempt)].
    expect(gaps).toEqual([250, 500, 1_000, 2_000, 2_000]);
  });

  it("retries a request that failed without an answer (network error) after the same backoff", async () => {
    let calls = 0;
    const times: number[] = [];
    const fetch = async (): Promise<Response> => {
      times.push(Date.now());
      if (calls++ < 2) throw new TypeError("fetch failed");
      return new Response(JSON.stringify({ success: true, message: "ok", data: { accepted: 1 }, error: null }), { status: 202 });
    };
    const client = new RecommendationClient({ baseUrl: "http://service.test", publishableKey: "svc_pk_test", storage: new MemoryStore(), fetch });
    client.track(view(1));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(times.slice(1).map((t, i) => t - times[i])).toEqual([250, 500]);
    expect(client.pending.queued).toBe(0);
  });

  for (const [status, error] of [
    [400, "validation_error"],
    [401, "revoked_api_key"],
    [403, "wrong_key_type"],
  ] as const) {
    it(`never retries a ${status}, and surfaces the service's code (${error}) to onError and flush()`, async () => {
      const { client, sent, errors } = scriptedClient([{ status, error }]);
      client.track(view(1));
      const flushed = client.flush().catch((err: unknown) => err);
      await vi.advanceTimersByTimeAsync(3_600_000);
      expect(sent).toHaveLength(1);
      expect(errors.map((e) => [e.status, e.code])).toEqual([[status, error]]);
      const err = await flushed;
      expect(err).toBeInstanceOf(RecommendationServiceError);
      expect((err as RecommendationServiceError).code).toBe(error);
      expect(client.pending.queued).toBe(0);
    });
  }

  it("drops only the events a 400 names by index and sends the others again", async () => {
    const { client, sent, errors } = scriptedClient([
      { status: 400, error: "validation_error", message: "events[1].item_id: must not be empty" },
      { status: 202 },
    ]);
    const events = [0, 1, 2].map((i) => client.track(view(i)));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent.map((s) => s.events.map((e) => e.event_id))).toEqual([events.map((e) => e.event_id), [events[0].event_id, events[2].event_id]]);
    expect(errors[0].code).toBe("validation_error");
  });

  it("keeps an event refused for its timestamp alone, without the timestamp, and drops the one refused for another field", async () => {
    const { client, sent, errors } = scriptedClient([
      {
        status: 400,
        error: "validation_error",
        message: "events[0].timestamp: must not be more than 24 hours in the future; events[1].item_id: must not be empty",
      },
      { status: 202 },
    ]);
    const events = [0, 1, 2].map((i) => client.track(view(i)));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent[1].events.map((e) => [e.event_id, e.timestamp === undefined])).toEqual([
      [events[0].event_id, true],
      [events[2].event_id, false],
    ]);
    expect(errors.map((e) => e.code)).toEqual(["validation_error"]);
  });

  it("splits a batch answered 413 and sends it again in halves", async () => {
    const { client, sent } = scriptedClient([{ status: 413, error: "payload_too_large" }, { status: 202 }]);
    for (let i = 0; i < 8; i++) client.track(view(i));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent.map((s) => s.events.length)).toEqual([8, 4, 4]);
  });

  it("drops the oldest events beyond maxQueueSize and counts them", async () => {
    const { client, errors } = scriptedClient([{ status: 202 }], { maxQueueSize: 3 });
    for (let i = 0; i < 5; i++) client.track(view(i));
    expect(client.pending).toEqual({ queued: 3, dropped: 2 });
    expect(errors[0].message).toMatch(/dropped/);
  });
});

describe("the queue as a page closes", () => {
  const opts = {
    batchSize: 500,
    maxBatchBytes: 1 << 20,
    unloadBatchBytes: 6_000,
    flushIntervalMs: 60_000,
    maxQueueSize: 1_000,
    backoff: DEFAULT_BACKOFF,
  };

  it("sends with keepalive at most unloadBatchBytes in flight, and never the same event twice while one is out", async () => {
    const bodies: Array<{ body: string; keepalive: boolean }> = [];
    let answer: () => void = () => undefined;
    const queue = new EventQueue(
      opts,
      {
        send: (body, keepalive) => {
          bodies.push({ body, keepalive });
          return new Promise<void>((resolve) => (answer = resolve));
        },
        onError: () => undefined,
        random: () => 0.5,
      },
      undefined,
    );
    for (let i = 0; i < 200; i++)
      queue.push({ event_name: "view", event_family: "engagement", user_id: "u1", item_id: `item-${i}`, event_id: `id-${i}` });
    queue.flushOnUnload(); // visibilitychange: hidden
    queue.flushOnUnload(); // then pagehide, with the first still out
    expect(bodies.map((b) => b.keepalive)).toEqual(bodies.map(() => true));
    const sizes = bodies.map((b) => new TextEncoder().encode(b.body).length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(6_000);
    const ids = bodies.flatMap((b) => (JSON.parse(b.body) as TrackedEvent[]).map((e) => e.event_id));
    expect(new Set(ids).size).toBe(ids.length);
    answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(queue.size).toBe(200 - ids.length);
  });
});

describe("the client's own faults", () => {
  it("refuses track() at once when it has no publishable key", () => {
    const client = new RecommendationClient({ baseUrl: "http://service.test", storage: new MemoryStore() });
    expect(() => client.track(view(1))).toThrow(/publishableKey/);
  });
});
