/** Calls of the service's HTTP API from a benchmark or the fuzzer (fetch, keep-alive), outside a measured load. */
import { setTimeout as sleep } from "node:timers/promises";

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

const RETRIES = 20;

export interface Posted {
  status: number;
  body: string;
  /** Times the server said "later" before it took the request. */
  retries: number;
}

/**
 * Sends `body` until the server takes it. A 503 (ingest queue full, database busy) or 429 is pushback, not
 * failure: the same body is sent again after a pause, which is safe because every event carries its event_id.
 */
export async function postJson(url: string, key: string, body: string): Promise<Posted> {
  for (let retries = 0; ; retries++) {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body });
    const text = await res.text();
    if ((res.status !== 503 && res.status !== 429) || retries === RETRIES) return { status: res.status, body: text, retries };
    await sleep(Math.min(2000, 50 * 2 ** retries));
  }
}
