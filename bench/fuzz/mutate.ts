/**
 * Case `index` of a run: a route's valid example, bent by zero to two mutations of different kinds (body,
 * headers, request line, framing). A pure function of (seed, index, fixture), so `--case` replays it.
 */
import { weaker, type Delivery, type Expect, type Framing, type FuzzCase, type Headers } from "./case.js";
import { mutateBytes } from "./byteMutators.js";
import { mutateCsv } from "./csvMutators.js";
import type { Fixture } from "./fixtures.js";
import { mutateFraming, slowDelivery } from "./framingMutators.js";
import { mutateHeaders } from "./headerMutators.js";
import { mutateJson } from "./jsonMutators.js";
import { mutateLine } from "./lineMutators.js";
import { Prng } from "./prng.js";
import { pickTarget, type Example, type Target } from "./targets.js";
import { encode } from "./wire.js";

/** Cases numbered from here are slow clients (their own lane, their own numbers). */
export const SLOW_BASE = 1_000_000_000;

type Category = "body" | "header" | "line" | "framing";

/** The request as the mutations leave it, starting as the example. */
const draft = (ex: Example) => ({
  method: ex.method,
  target: ex.path,
  version: "HTTP/1.1",
  headers: ex.headers as Headers,
  body: ex.body,
  framing: { kind: "length" } as Framing,
  delivery: { kind: "whole" } as Delivery,
  expect: "answer" as Expect,
  kinds: [] as string[],
});
type Draft = ReturnType<typeof draft>;

function mutateBody(rng: Prng, ex: Example, d: Draft): void {
  const { kind, body } =
    ex.value !== undefined && rng.chance(0.75)
      ? mutateJson(rng, ex.value, ex.format === "ndjson")
      : ex.format === "csv" && rng.chance(0.75)
        ? mutateCsv(rng, ex.body)
        : mutateBytes(rng, ex.body);
  d.body = body;
  d.kinds.push(kind);
}

function apply(rng: Prng, category: Category, t: Target, ex: Example, d: Draft, fx: Fixture): void {
  if (category === "body") return mutateBody(rng, ex, d);
  if (category === "header") {
    const m = mutateHeaders(rng, d.headers, fx, t.auth);
    d.headers = m.headers;
    d.expect = weaker(d.expect, m.expect);
    d.kinds.push(m.kind);
    return;
  }
  if (category === "line") {
    const m = mutateLine(rng, d.method, d.target);
    Object.assign(d, { method: m.method, target: m.target, version: m.version, headers: [...d.headers, ...m.headers] });
    d.expect = weaker(d.expect, m.expect);
    d.kinds.push(m.kind);
    return;
  }
  const wireLength = () => encode({ ...d }, { kind: "length" }).length;
  const m = mutateFraming(rng, d.body.length, wireLength);
  Object.assign(d, { framing: m.framing, delivery: m.delivery, headers: [...d.headers, ...m.headers] });
  d.expect = weaker(d.expect, m.expect);
  d.kinds.push(m.kind);
}

/**
 * uWS parses a request head that arrives whole in place, whatever its size, but buffers one that arrives in
 * pieces in 4 KiB (UWS_HTTP_MAX_HEADERS_SIZE) and drops the connection beyond: such a case may go unanswered.
 */
const UWS_FRAGMENTED_HEAD_MAX = 4096;

function fragmentedLongHead(d: Draft): boolean {
  if (d.delivery.kind !== "segments" && d.delivery.kind !== "slow") return false;
  return encode({ ...d, body: Buffer.alloc(0) }, { kind: "none" }).length > UWS_FRAGMENTED_HEAD_MAX;
}

const CATEGORY_WEIGHTS: ReadonlyArray<readonly [Category, number]> = [
  ["body", 10],
  ["header", 8],
  ["line", 5],
  ["framing", 4],
];

export function buildCase(seed: number, index: number, fx: Fixture): FuzzCase {
  const rng = Prng.forCase(seed, index);
  const slow = index >= SLOW_BASE;
  const t = pickTarget(rng);
  const ex = t.example(rng, fx);
  const d = draft(ex);
  const s = slow ? slowDelivery(rng) : undefined;
  const hold = s?.delivery.kind === "held";
  // A held connection gets the ordinary mutations (framing ones included: a lying length is what keeps a server waiting).
  const rounds =
    slow && !hold
      ? rng.int(0, 1)
      : rng.weighted([
          [0, 2],
          [1, 12],
          [2, 3],
        ] as const);
  const categories = CATEGORY_WEIGHTS.filter(([c]) => !(slow && !hold && c === "framing"));
  const used = new Set<Category>();
  for (let i = 0; i < rounds; i++) {
    const category = rng.weighted(categories.filter(([c]) => !used.has(c)));
    used.add(category);
    apply(rng, category, t, ex, d, fx);
  }
  if (s && (!hold || d.delivery.kind === "whole")) {
    d.delivery = s.delivery;
    d.expect = weaker(d.expect, s.expect);
    d.kinds.push(s.kind);
  }
  if (fragmentedLongHead(d)) d.expect = weaker(d.expect, "maybe");
  return {
    index,
    route: t.route,
    mutation: d.kinds.length ? d.kinds.join("+") : "valid",
    request: { method: d.method, target: d.target, version: d.version, headers: d.headers, body: d.body },
    framing: d.framing,
    delivery: d.delivery,
    expect: d.expect,
  };
}
