/** Whole HTTP/1.1 ingestion requests, built ahead of time for the load generator. */
import { requestHead, withBody } from "../../kit/rawHttp.js";
import { randomEvents } from "./events.js";

export interface Target {
  url: URL;
  headers: Record<string, string>;
}

/** The ingestion endpoint at `baseUrl`, called with a publishable key. */
export function ingestTarget(baseUrl: string, pk: string): Target {
  return { url: new URL(`${baseUrl}/v1/events/ingest`), headers: { "content-type": "application/json", "x-api-key": pk } };
}

function rawRequest(t: Target, n: number, body: (n: number) => string): Buffer {
  return withBody(requestHead("POST", t.url, t.headers), body(n));
}

const EMPTY = Buffer.alloc(0);

/**
 * Requests made ahead of time (so the load generator spends its CPU on sending), topped up on the fly when
 * short. Each request is used once: every event_id sent is fresh. (autocannon's own per-request hook,
 * setupRequest, rebuilds the request through several object copies and costs the load generator more
 * than half its rate on 1-event bodies; the prebuilt buffers are handed to its clients instead.)
 */
export class RequestPool {
  private readonly reqs: Buffer[];
  private next = 0;
  constructor(
    private readonly target: Target,
    private readonly n: number,
    count: number,
    /** The bodies' maker: random events by default (bench:cluster passes its seeded one). */
    private readonly body: (n: number) => string = (n) => randomEvents.body(n),
  ) {
    this.reqs = new Array<Buffer>(count);
    for (let i = 0; i < count; i++) this.reqs[i] = rawRequest(target, n, body);
  }
  take(): Buffer {
    if (this.next < this.reqs.length) {
      const b = this.reqs[this.next];
      this.reqs[this.next++] = EMPTY; // let it go once sent
      return b;
    }
    return rawRequest(this.target, this.n, this.body);
  }
}
