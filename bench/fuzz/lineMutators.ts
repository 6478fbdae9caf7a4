/** Mutations of the request line: wrong methods, preflights, the /api aliases, odd paths and queries, versions. */
import type { Expect, Headers } from "./case.js";
import type { Prng } from "./prng.js";

interface LineMutation {
  kind: string;
  method: string;
  target: string;
  version: string;
  /** Headers to add (a preflight's). */
  headers: Headers;
  expect: Expect;
}

interface Line {
  method: string;
  target: string;
}

const aliased = (t: string) => (t.startsWith("/v1/") || t.startsWith("/auth/") ? `/api${t}` : t);
/** The path's last segment when the route has a parameter there (a key pair or member id). */
const ID_PARAM = /^(\/v1\/(?:keys|members)\/)([^/?]+)(.*)$/;

const BAD_IDS = [
  "%ZZ",
  "%",
  "%E0%A4%A",
  "%00",
  "%2F",
  "..",
  "00000000-0000-0000-0000-000000000000",
  "not-a-uuid",
  "x".repeat(3000),
  "%F0%9F%98%80",
  "%C0%AF",
  "%ud800",
];

type Mutator = (
  rng: Prng,
  l: Line,
) => Omit<LineMutation, "version" | "headers" | "expect"> & Partial<Pick<LineMutation, "version" | "headers" | "expect">>;

const MUTATORS: Array<readonly [Mutator, number]> = [
  [
    (rng, l) => ({
      kind: "method.wrong",
      method: rng.pick(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "TRACE", "OPTIONS"].filter((m) => m !== l.method)),
      target: l.target,
    }),
    5,
  ],
  // uWS's parser knows a fixed set of methods and closes the connection on any other.
  [(rng, l) => ({ kind: "method.unknown", method: rng.pick(["FOO", "PROPFIND", "CONNECT", "PRI"]), target: l.target, expect: "maybe" }), 1],
  [(_rng, l) => ({ kind: "method.lowercase", method: l.method.toLowerCase(), target: l.target, expect: "maybe" }), 1],
  [(rng, l) => ({ kind: "method.long", method: "X".repeat(rng.pick([20, 300, 5000])), target: l.target, expect: "maybe" }), 1],
  [
    (rng, l) => ({
      kind: "options.preflight",
      method: "OPTIONS",
      target: rng.chance(0.3) ? aliased(l.target) : l.target,
      headers: [
        ["origin", "https://shop.example"],
        ["access-control-request-method", rng.pick([l.method, "DELETE"])],
        ["access-control-request-headers", "content-type, x-api-key"],
      ],
    }),
    4,
  ],
  [(_rng, l) => ({ kind: "options.bare", method: "OPTIONS", target: l.target }), 1],
  [(_rng, l) => ({ kind: "path.api-alias", method: l.method, target: aliased(l.target) }), 6],
  [(_rng, l) => ({ kind: "path.trailing-slash", method: l.method, target: l.target.replace(/(\?|$)/, "/$1") }), 1],
  [(_rng, l) => ({ kind: "path.double-slash", method: l.method, target: l.target.replace("/", "//") }), 1],
  [(_rng, l) => ({ kind: "path.upper-case", method: l.method, target: l.target.toUpperCase() }), 1],
  [
    (_rng, l) => ({ kind: "path.percent-encoded", method: l.method, target: l.target.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`) }),
    1,
  ],
  [
    (rng, l) => ({
      kind: "path.dot-segments",
      method: l.method,
      target: rng.pick(["/v1/../v1/me", "/./healthz", "/dashboard/../healthz", "/dashboard/%2e%2e/src/main.ts", "/dashboard/..%2f..%2fpackage.json"]),
    }),
    1,
  ],
  [
    (rng, l) => {
      const m = ID_PARAM.exec(l.target);
      const bad = rng.pick(BAD_IDS);
      const target = m ? `${m[1]}${bad}${m[3]}` : rng.pick([`/v1/keys/${bad}/revoke`, `/v1/members/${bad}`]);
      return { kind: "path.param", method: m ? l.method : rng.pick(["POST", "PATCH"]), target };
    },
    4,
  ],
  [
    (rng, l) => {
      const q = rng.pick([
        "?a=%ZZ",
        "?limit=abc",
        "?limit=1&limit=2",
        "?__proto__=x&constructor=y",
        `?q=${"q".repeat(4000)}`,
        "?from=garbage&to=",
        "?limit=-1",
        "?before=1e999",
        "?&&&=&",
        "?limit=0x10",
        "?from=2024-01-02T00:00:00Z&to=2024-01-01T00:00:00Z",
        "?x=%00",
      ]);
      return { kind: "path.query", method: l.method, target: l.target.split("?")[0] + q };
    },
    3,
  ],
  [(_rng, l) => ({ kind: "path.fragment", method: l.method, target: `${l.target}#frag` }), 1],
  [
    (rng, l) => ({
      kind: "path.long",
      method: l.method,
      target: `${l.target.split("?")[0]}/${"p".repeat(rng.pick([1000, 5000, 70_000]))}`,
      expect: "maybe",
    }),
    1,
  ],
  [(_rng, l) => ({ kind: "path.absolute-form", method: l.method, target: `http://127.0.0.1${l.target}`, expect: "maybe" }), 1],
  [(rng, l) => ({ kind: "path.asterisk", method: rng.pick(["OPTIONS", l.method]), target: "*", expect: "maybe" }), 1],
  [(rng, l) => ({ kind: "path.raw-bytes", method: l.method, target: l.target + rng.pick(["/é", "/ space", "/\u00ff", "/\t"]), expect: "maybe" }), 1],
  [
    (rng, l) => ({
      kind: "version",
      method: l.method,
      target: l.target,
      version: rng.pick(["HTTP/1.0", "HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "http/1.1", "HTTP/1.1 x"]),
      expect: "maybe",
    }),
    1,
  ],
];

export function mutateLine(rng: Prng, method: string, target: string): LineMutation {
  const m = rng.weighted(MUTATORS)(rng, { method, target });
  return { version: "HTTP/1.1", headers: [], expect: "answer", ...m, kind: `line.${m.kind}` };
}
