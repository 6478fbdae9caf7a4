/** One JSON POST to the server with a key, retried while the server says "later" (503, 429). */
import { setTimeout as sleep } from "node:timers/promises";

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
