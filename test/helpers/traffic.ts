import { randomInt, randomUUID } from "node:crypto";
import type pg from "pg";

/** One ingest request of a load stream and what became of it. */
export interface SentRequest {
  events: Array<Record<string, unknown>>;
  ids: string[];
  /** performance.now() when the request left; undefined if it was never sent. */
  startedAt?: number;
  endedAt?: number;
  /** The HTTP status, once a status line arrived; undefined when the connection failed first. */
  status?: number;
  /** The envelope's `error` code, when the body could be read. */
  error?: string | null;
  /** Why no answer came (connection refused, reset...). */
  network?: string;
}

const EVENT_KINDS = [
  ["engagement", "view"],
  ["engagement", "click"],
  ["engagement", "add_to_cart"],
  ["conversion", "purchase"],
  ["exposure", "impression"],
] as const;

/** `size` valid events with client-chosen random v4 event_ids (as real clients send them). */
export function randomEvents(size: number): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  for (let i = 0; i < size; i++) {
    const [family, name] = EVENT_KINDS[randomInt(EVENT_KINDS.length)];
    events.push({
      event_id: randomUUID(),
      user_id: `user-${randomInt(500)}`,
      item_id: `item-${randomInt(2000)}`,
      event_family: family,
      event_name: name,
      context: { page: "home", note: "tab\there, newline\nthere, backslash \\ too" },
    });
  }
  return events;
}

export function request(events: Array<Record<string, unknown>>): SentRequest {
  return { events, ids: events.map((e) => e.event_id as string) };
}

/** `count` requests of min..max events each. */
export function randomRequests(count: number, min: number, max: number): SentRequest[] {
  return Array.from({ length: count }, () => request(randomEvents(min + randomInt(max - min + 1))));
}

/** Sends one request and records its fate in `r` (never throws). */
export async function send(url: string, apiKey: string, r: SentRequest, path = "/v1/events/ingest"): Promise<SentRequest> {
  r.startedAt = performance.now();
  try {
    const res = await fetch(url + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify(r.events),
      signal: AbortSignal.timeout(30_000),
    });
    // A status line is an answer: a 202 whose body is cut off still counts as acknowledged.
    r.status = res.status;
    try {
      r.error = ((await res.json()) as { error?: string | null }).error;
    } catch {
      r.error = undefined;
    }
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    r.network = e.cause?.code ?? e.cause?.message ?? e.message;
  }
  r.endedAt = performance.now();
  return r;
}

/** Requests sent `concurrency` at a time until the list runs out or `stop()` is called. */
export interface Stream {
  readonly requests: SentRequest[];
  /** Requests sent and not yet answered. */
  readonly inFlight: number;
  /** Requests answered so far (any status). */
  readonly answered: number;
  /** Resolves once `n` requests have been answered (or the stream ends). */
  whenAnswered(n: number): Promise<void>;
  /** No new request is sent after this; those in flight finish. */
  stop(): void;
  /** Resolves when every worker has finished. */
  done: Promise<void>;
}

export function stream(url: string, apiKey: string, requests: SentRequest[], concurrency: number): Stream {
  let next = 0;
  let inFlight = 0;
  let answered = 0;
  let stopped = false;
  let waiters: Array<{ n: number; resolve: () => void }> = [];
  const wake = (all = false) => {
    waiters = waiters.filter((w) => {
      if (all || answered >= w.n) w.resolve();
      return !(all || answered >= w.n);
    });
  };
  const worker = async () => {
    while (!stopped && next < requests.length) {
      const r = requests[next++];
      inFlight++;
      await send(url, apiKey, r);
      inFlight--;
      if (r.status !== undefined) answered++;
      wake();
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker)).then(() => wake(true));
  return {
    requests,
    get inFlight() {
      return inFlight;
    },
    get answered() {
      return answered;
    },
    whenAnswered: (n) => (answered >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    stop: () => {
      stopped = true;
    },
    done,
  };
}

/** How many times each event_id of the organisation is stored. */
export async function storedCounts(db: pg.Pool, orgId: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; n: number }>(
    `SELECT e.event_id::text AS id, count(*)::int AS n
       FROM events e JOIN organisations o ON o.seq = e.org
      WHERE o.id = $1 GROUP BY e.event_id`,
    [orgId],
  );
  return new Map(rows.map((r) => [r.id, r.n]));
}

/** COUNT(*) and COUNT(DISTINCT event_id) of the organisation's events. */
export async function eventTotals(db: pg.Pool, orgId: string): Promise<{ total: number; distinct: number }> {
  const { rows } = await db.query<{ total: number; distinct: number }>(
    `SELECT count(*)::int AS total, count(DISTINCT e.event_id)::int AS distinct
       FROM events e JOIN organisations o ON o.seq = e.org WHERE o.id = $1`,
    [orgId],
  );
  return rows[0];
}

/** The ids among `ids` not stored exactly once (empty when all are). */
export function notStoredOnce(ids: Iterable<string>, counts: Map<string, number>): Array<{ id: string; stored: number }> {
  const bad: Array<{ id: string; stored: number }> = [];
  for (const id of ids) {
    const n = counts.get(id) ?? 0;
    if (n !== 1) bad.push({ id, stored: n });
  }
  return bad;
}

/** A histogram of outcomes (`202`, `503 unavailable`, `ECONNRESET`...), for readable failure messages. */
export function outcomes(requests: SentRequest[]): Record<string, number> {
  const h: Record<string, number> = {};
  for (const r of requests) {
    if (r.startedAt === undefined) continue;
    const k = r.status !== undefined ? `${r.status}${r.error ? ` ${r.error}` : ""}` : `no answer (${r.network})`;
    h[k] = (h[k] ?? 0) + 1;
  }
  return h;
}
