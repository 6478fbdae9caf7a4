/** Calls of the service's HTTP API from a benchmark or the fuzzer (fetch, keep-alive), outside a measured load. */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "./settings.js";

export interface CallOptions {
  method?: string;
  /** An API key (x-api-key). */
  key?: string;
  /** A dashboard token (Authorization: Bearer). */
  token?: string;
  /** A JSON body, stringified here. */
  json?: unknown;
  /** A body sent as it is, with `contentType`. */
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface Called {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's JSON answer (undefined when not JSON), whose fields each caller reads where it needs them
  json: any;
}

/** One request; POST when it has a body, GET otherwise. */
export async function call(url: string, o: CallOptions = {}): Promise<Called> {
  const body = o.json !== undefined ? JSON.stringify(o.json) : o.body;
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers["x-api-key"] = o.key;
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (body !== undefined) headers["content-type"] = o.contentType ?? "application/json";
  const res = await fetch(url, {
    method: o.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
    signal: o.timeoutMs ? AbortSignal.timeout(o.timeoutMs) : undefined,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** One view of `item` by `user`, with a fresh event_id. */
export const viewEvent = (user: string, item: string) => ({
  user_id: user,
  event_family: "engagement",
  event_name: "view",
  item_id: item,
  event_id: randomUUID(),
});

const RETRIES = 20;

/**
 * Sends `body` until the server takes it. A 503 (ingest queue full, database busy) or 429 is pushback, not
 * failure: the same body is sent again after a pause, which is safe because every event carries its event_id.
 * `retries`: times the server said "later" before it took the request.
 */
export async function postJson(url: string, key: string, body: string) {
  for (let retries = 0; ; retries++) {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body });
    const text = await res.text();
    if ((res.status !== 503 && res.status !== 429) || retries === RETRIES) return { status: res.status, body: text, retries };
    await sleep(Math.min(2000, 50 * 2 ** retries));
  }
}

export type Sent = Awaited<ReturnType<typeof sendInArrays>>;

/**
 * Sends `records` to `url` in JSON arrays of `size` (each record as `wire` makes it), `inFlight` requests at a
 * time, built as they go (at most a few requests' worth exists at once); any answer but 202 stops it. `label`:
 * progress at every tenth of `total`.
 */
export async function sendInArrays<T>(
  url: string,
  key: string,
  records: Iterable<T>,
  o: { size: number; inFlight: number; wire?: (r: T) => unknown; label?: string; total?: number },
) {
  const source = records[Symbol.iterator]();
  const started = performance.now();
  // retries: requests the server pushed back (503/429) and that were sent again.
  const sent = { records: 0, seconds: 0, perS: 0, requests: 0, retries: 0 };
  const total = o.total ?? Infinity;
  let nextReport = total / 10;
  const nextBody = (): [string, number] | undefined => {
    const batch: unknown[] = [];
    for (let r = source.next(); !r.done; r = source.next()) if (batch.push(o.wire ? o.wire(r.value) : r.value) === o.size) break;
    return batch.length ? [JSON.stringify(batch), batch.length] : undefined;
  };
  const worker = async () => {
    // Each worker builds its next body synchronously, so the records keep their order within a body.
    for (let next = nextBody(); next; next = nextBody()) {
      const r = await postJson(url, key, next[0]);
      if (r.status !== 202) throw new Error(`${o.label ?? url}: answer ${r.status} (expected 202): ${r.body.slice(0, 500)}`);
      sent.records += next[1];
      sent.requests++;
      sent.retries += r.retries;
      if (o.label && sent.records >= nextReport) {
        const s = (performance.now() - started) / 1000;
        log(
          `  ${o.label}: ${sent.records.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} (${Math.round(sent.records / s).toLocaleString("en-US")}/s)`,
        );
        nextReport += total / 10;
      }
    }
  };
  await Promise.all(Array.from({ length: o.inFlight }, worker));
  sent.seconds = (performance.now() - started) / 1000;
  sent.perS = sent.records / sent.seconds;
  return sent;
}
