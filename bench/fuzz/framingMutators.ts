/**
 * Mutations of how the body travels: Content-Length that lies or is not a number, chunked encoding with odd
 * chunk sizes, no framing at all, both framings at once, requests written in pieces, pipelined, or left
 * mid-body; and the slow clients that dribble a request for seconds.
 */
import type { Delivery, Expect, Framing, Headers } from "./case.js";
import type { Prng } from "./prng.js";

interface FramingMutation {
  kind: string;
  framing: Framing;
  delivery: Delivery;
  /** Headers to add. */
  headers: Headers;
  expect: Expect;
}

const plain = (kind: string, framing: Framing, expect: Expect, headers: Headers = [], delivery: Delivery = { kind: "whole" }): FramingMutation => ({
  kind,
  framing,
  delivery,
  headers,
  expect,
});
/** An honest Content-Length, delivered otherwise than whole. */
const delivered = (kind: string, delivery: Delivery, expect: Expect) => plain(kind, { kind: "length" }, expect, [], delivery);

function oddSizes(rng: Prng, n: number): number[] {
  const style = rng.int(0, 2);
  if (style === 0) return Array.from({ length: Math.min(n, 200) }, () => 1);
  if (style === 1) return Array.from({ length: rng.int(1, 20) }, () => rng.pick([1, 2, 3, 7, 255, 256, 4095, 4096, 65_537]));
  return [rng.int(1, Math.max(1, n))];
}

type Mutator = (rng: Prng, bodyLength: number, wireLength: () => number) => FramingMutation;

const MUTATORS: Array<readonly [Mutator, number]> = [
  // The server reads the declared bytes, answers, and takes the rest for a next request that is garbage.
  [(rng, n) => plain("length.shorter", { kind: "length-lie", value: String(Math.max(0, n - rng.int(1, Math.max(1, n)))) }, "maybe"), 2],
  // The server waits for bytes that never come; we close after the bound.
  [(rng, n) => plain("length.longer", { kind: "length-lie", value: String(n + rng.pick([1, 100, 1_000_000])) }, "maybe"), 2],
  [
    (rng) =>
      plain(
        "length.garbage",
        { kind: "length-lie", value: rng.pick(["abc", "-1", "1e3", " 12", "0x10", "99999999999999999999", "12, 12", "", "+5", "5 5"]) },
        "maybe",
      ),
    2,
  ],
  [(_rng, n) => plain("length.duplicated", { kind: "length" }, "maybe", [["content-length", String(n + 1)]]), 1],
  [
    (rng, n) =>
      plain("chunked", { kind: "chunked", sizes: oddSizes(rng, n), style: rng.pick(["lower", "upper", "padded"] as const), final: true }, "answer"),
    5,
  ],
  [(rng, n) => plain("chunked.extension", { kind: "chunked", sizes: oddSizes(rng, n), style: "extension", final: true }, "maybe"), 1],
  [(rng, n) => plain("chunked.no-final-chunk", { kind: "chunked", sizes: oddSizes(rng, n), style: "lower", final: false }, "maybe"), 1],
  [
    (rng, n) =>
      plain("chunked.and-length", { kind: "chunked", sizes: oddSizes(rng, n), style: "lower", final: true }, "maybe", [
        ["content-length", String(n)],
      ]),
    1,
  ],
  [
    (rng) =>
      plain("chunked.other-coding", { kind: "chunked", sizes: [], style: "lower", final: true }, "maybe", [
        ["transfer-encoding", rng.pick(["gzip", "identity", "chunked"])],
      ]),
    1,
  ],
  [() => plain("unframed", { kind: "none" }, "maybe"), 1],
  [
    (rng, _n, wire) => {
      const total = wire();
      const cuts = Array.from({ length: rng.int(1, 6) }, () => rng.int(1, Math.max(1, total - 1))).sort((a, b) => a - b);
      return delivered("segments", { kind: "segments", cuts }, "answer");
    },
    4,
  ],
  // uWS answers pipelined requests only while each is answered synchronously: one arriving behind an answer
  // still pending (any handler that awaits) makes it close the connection, by design.
  [() => delivered("pipelined", { kind: "pipelined" }, "maybe"), 2],
  [(rng, _n, wire) => delivered("abort", { kind: "abort", after: rng.int(1, Math.max(1, wire() - 1)) }, "none"), 3],
];

/** `wireLength`: the whole request's size with an honest Content-Length (where pieces may be cut). */
export function mutateFraming(rng: Prng, bodyLength: number, wireLength: () => number): FramingMutation {
  const m = rng.weighted(MUTATORS)(rng, bodyLength, wireLength);
  return { ...m, kind: `framing.${m.kind}` };
}

/**
 * A slow client: a request dribbled a few bytes at a time for seconds, then completed or abandoned; or a
 * connection held open after its request (`hold`), which the server must answer or close in time.
 */
export function slowDelivery(rng: Prng): { kind: string; delivery: Delivery; expect: Expect } {
  if (rng.chance(0.4)) return { kind: "slow.hold", delivery: { kind: "held" }, expect: "answer" };
  const then = rng.chance(0.6) ? "complete" : "abandon";
  return {
    kind: `slow.${then}`,
    delivery: {
      kind: "slow",
      bytesPerTick: rng.pick([1, 1, 2, 16]),
      tickMs: rng.pick([20, 50, 200]),
      dribbleMs: rng.int(1000, 5000),
      then,
      bodyOnly: rng.chance(0.5),
    },
    expect: then === "complete" ? "answer" : "none",
  };
}
