/** What one fuzz case sends: the request as bytes-to-be, how its body is framed, and how it is delivered. */

/** A header value may be raw bytes (invalid UTF-8, NUL, CR/LF) that no HTTP client library would send. */
type HeaderValue = string | Buffer;
export type Headers = Array<[string, HeaderValue]>;

export interface RawRequest {
  method: string;
  /** The request-target exactly as sent: path, query and anything else. */
  target: string;
  version: string;
  headers: Headers;
  body: Buffer;
}

export type Framing =
  /** An honest Content-Length (left out for an empty GET/HEAD/OPTIONS/DELETE). */
  | { kind: "length" }
  /** A Content-Length that lies or is not a number: the value as sent. */
  | { kind: "length-lie"; value: string }
  /** Transfer-Encoding: chunked, cut at `sizes` (the rest in one chunk); `final: false` leaves out the last chunk. */
  | { kind: "chunked"; sizes: number[]; style: "lower" | "upper" | "padded" | "extension"; final: boolean }
  /** Neither header: whatever body follows the head is, to HTTP/1.1, the next request. */
  | { kind: "none" };

export type Delivery =
  | { kind: "whole" }
  /** Written in pieces ending at these offsets, a few milliseconds apart. */
  | { kind: "segments"; cuts: number[] }
  /**
   * `bytesPerTick` bytes every `tickMs` for `dribbleMs`, then the rest at once or a close; `bodyOnly`: the head
   * goes at once and only the body dribbles.
   */
  | { kind: "slow"; bytesPerTick: number; tickMs: number; dribbleMs: number; then: "complete" | "abandon"; bodyOnly: boolean }
  /** The first `after` bytes, then the socket is destroyed (a client gone mid-request). */
  | { kind: "abort"; after: number }
  /** The same request twice on one connection, in one write. */
  | { kind: "pipelined" }
  /** Written whole, then the connection is held open: the server must answer or close it within the hold bound. */
  | { kind: "held" };

/**
 * What the server owes the case: `answer`, a well-formed complete request, must get an answer from the service
 * within the bound; `maybe`, a request broken at the HTTP level, may be answered (then correctly) or dropped;
 * `none`, the client leaves, so only the server's survival is checked.
 */
export type Expect = "answer" | "maybe" | "none";

export interface FuzzCase {
  index: number;
  /** The route of the example the case started from (e.g. `POST /v1/recommend`), for the report. */
  route: string;
  /** The mutations applied, e.g. `json.retype+header.content-type`. */
  mutation: string;
  request: RawRequest;
  framing: Framing;
  delivery: Delivery;
  expect: Expect;
}

const EXPECT_ORDER: Record<Expect, number> = { answer: 0, maybe: 1, none: 2 };

/** The weaker of two expectations. */
export function weaker(a: Expect, b: Expect): Expect {
  return EXPECT_ORDER[a] >= EXPECT_ORDER[b] ? a : b;
}
