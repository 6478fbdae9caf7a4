/**
 * Mutations of the headers: content types and charsets, API keys of the wrong kind, prefix or length, tokens
 * that are garbage, forged, expired-looking or of a lesser role, repeated headers, huge and malformed ones.
 */
import type { Expect, Headers } from "./case.js";
import type { Fixture } from "./fixtures.js";
import type { Prng } from "./prng.js";
import type { AuthKind } from "./targets.js";

interface HeaderMutation {
  kind: string;
  headers: Headers;
  /** `maybe` when the headers are broken at the HTTP level (the server may drop the connection). */
  expect: Expect;
}

const CONTENT_TYPES = [
  "text/plain",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "APPLICATION/JSON",
  "application/json;",
  "application/jsonx",
  "application/json, text/plain",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "",
  " application/json ",
  'application/json; charset="utf-8"',
  "text/csv",
  "application/x-ndjson",
  "application/jsonl",
  "application/*",
  "*/*",
  "application/json\tcharset=utf-8",
  `application/json; p=${"v".repeat(3000)}`,
  "text/csv; charset=utf-8",
  "application/ld+json",
];

const b64 = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");
const HS256 = b64({ alg: "HS256", typ: "JWT" });

function decodePayload(token: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
  } catch {
    return {};
  }
}

/** Tokens the server must refuse (401) or treat as the lesser role they carry (403). */
function tokens(rng: Prng, fx: Fixture): Array<[string, string]> {
  const claims = decodePayload(fx.a.token);
  const [h, , sig] = fx.a.token.split(".");
  const now = Math.floor(Date.now() / 1000);
  const forgedSig = rng.bytes(32).toString("base64url");
  return [
    ["other-org", fx.b.token],
    ["admin", fx.a.adminToken],
    ["developer", fx.a.developerToken],
    ["member", fx.a.memberToken],
    ["alg-none", `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`],
    ["expired", `${HS256}.${b64({ ...claims, iat: now - 90_000, exp: now - 3600 })}.${forgedSig}`],
    ["tampered-role", `${h}.${b64({ ...claims, role: "OWNER", sub: claims.sub })}.${sig}`],
    ["tampered-org", `${h}.${b64({ ...claims, org: fx.b.orgId })}.${sig}`],
    ["bad-signature", `${h}.${b64(claims)}.${forgedSig}`],
    ["four-parts", `${fx.a.token}.x`],
    ["two-parts", fx.a.token.split(".").slice(0, 2).join(".")],
    ["garbage", rng.bytes(rng.int(1, 64)).toString("base64url")],
    ["payload-not-json", `${h}.${b64("not json")}.${sig}`],
    ["kid-injection", `${b64({ alg: "HS256", typ: "JWT", kid: "../../dev/null" })}.${b64(claims)}.${sig}`],
    ["huge", "a".repeat(6000) + "." + "b".repeat(2000) + ".c"],
  ];
}

function apiKeys(rng: Prng, fx: Fixture, auth: AuthKind): Array<[string, string]> {
  const own = auth === "secret" ? fx.a.sk : fx.a.pk;
  return [
    ["empty", ""],
    ["prefix-only-pk", "svc_pk_"],
    ["prefix-only-sk", "svc_sk_"],
    ["wrong-prefix", "svc_xx_" + own.slice(7)],
    ["upper-prefix", own.toUpperCase()],
    ["other-type", auth === "secret" ? fx.a.pk : fx.a.sk],
    ["revoked-pk", fx.revoked.pk],
    ["revoked-sk", fx.revoked.sk],
    ["other-org", auth === "secret" ? fx.b.sk : fx.b.pk],
    ["trailing-space", own + " "],
    ["one-more-char", own + "x"],
    ["truncated", own.slice(0, rng.int(7, own.length - 1))],
    ["long", own.slice(0, 7) + "A".repeat(rng.pick([100, 1000, 3000]))],
    ["unknown", own.slice(0, 7) + rng.bytes(30).toString("base64url").replace(/[-_]/g, "A")],
    ["unicode", own.slice(0, 7) + "😀ключ"],
    ["bearer-form", `Bearer ${own}`],
  ];
}

type Mutator = (rng: Prng, h: Headers, fx: Fixture, auth: AuthKind) => HeaderMutation;

const set = (h: Headers, name: string, value: string | Buffer): Headers => [...h.filter(([n]) => n.toLowerCase() !== name), [name, value]];
const drop = (h: Headers, name: string): Headers => h.filter(([n]) => n.toLowerCase() !== name);
const ok = (kind: string, headers: Headers): HeaderMutation => ({ kind, headers, expect: "answer" });
const broken = (kind: string, headers: Headers): HeaderMutation => ({ kind, headers, expect: "maybe" });

const MUTATORS: Array<readonly [Mutator, number]> = [
  [
    (rng, h) =>
      rng.chance(0.2)
        ? ok("content-type.missing", drop(h, "content-type"))
        : ok("content-type.variant", set(h, "content-type", rng.pick(CONTENT_TYPES))),
    5,
  ],
  [(rng, h) => ok("content-type.duplicated", [...h, ["content-type", rng.pick(CONTENT_TYPES)]]), 1],
  [
    (rng, h, fx, auth) => {
      const [name, key] = rng.pick(apiKeys(rng, fx, auth === "secret" ? "secret" : "publishable"));
      return rng.chance(0.15) ? ok("x-api-key.missing", drop(h, "x-api-key")) : ok(`x-api-key.${name}`, set(h, "x-api-key", key));
    },
    5,
  ],
  [(rng, h, fx) => ok("x-api-key.duplicated", [...h, ["x-api-key", rng.chance(0.5) ? fx.a.pk : "svc_pk_nope"]]), 1],
  [(rng, h, fx) => ok("x-api-key.as-authorization", set(drop(h, "x-api-key"), "authorization", `Bearer ${rng.pick([fx.a.pk, fx.a.sk])}`)), 1],
  [
    (rng, h, fx) => {
      const [name, token] = rng.pick(tokens(rng, fx));
      return ok(`authorization.${name}`, set(h, "authorization", `Bearer ${token}`));
    },
    6,
  ],
  [
    (rng, h, fx) =>
      ok(
        "authorization.scheme",
        set(
          h,
          "authorization",
          rng.pick([
            "Bearer",
            "Bearer ",
            "Basic dXNlcjpwYXNz",
            `bearer ${fx.a.token}`,
            `Bearer  ${fx.a.token}`,
            `Token ${fx.a.token}`,
            fx.a.token,
            `Bearer ${fx.a.token} extra`,
          ]),
        ),
      ),
    3,
  ],
  [(_rng, h) => ok("authorization.missing", drop(h, "authorization")), 2],
  [(rng, h, fx) => ok("authorization.duplicated", [...h, ["authorization", rng.chance(0.5) ? `Bearer ${fx.a.memberToken}` : "Bearer x.y.z"]]), 1],
  [
    (rng, h, fx) => {
      const cookie = `recsvc_session=${rng.chance(0.8) ? fx.a.token : "garbage"}`;
      const origin = rng.pick([undefined, `http://127.0.0.1:${fx.port}`, "https://evil.example", "null", "not a url"]);
      const out = set(drop(h, "authorization"), "cookie", rng.chance(0.2) ? `a=b; ${cookie}; c=d` : cookie);
      return ok(`cookie-session${origin ? ".origin" : ""}`, origin ? set(out, "origin", origin) : out);
    },
    2,
  ],
  [
    (rng, h) =>
      ok(
        "x-forwarded-for.garbage",
        set(
          h,
          "x-forwarded-for",
          rng.pick(["", "unknown", "::1", "999.999.999.999", "a".repeat(2000), "1.1.1.1, ".repeat(200), "[::ffff:1.2.3.4]:80"]),
        ),
      ),
    2,
  ],
  [
    (rng, h) =>
      ok("origin.preflight-headers", [
        ...h,
        ["origin", "https://shop.example"],
        ["access-control-request-method", rng.pick(["POST", "GET", "DELETE", "FOO"])],
        ["access-control-request-headers", "content-type, x-api-key, x-evil"],
      ]),
    1,
  ],
  [(_rng, h) => ok("expect-100-continue", [...h, ["expect", "100-continue"]]), 1],
  [(rng, h) => ok("connection", [...h, ["connection", rng.pick(["close", "keep-alive", "Upgrade, close", "foo"])]]), 1],
  [
    (rng, h) =>
      ok("accept-variants", [
        ...h,
        ["accept", rng.pick(["text/html", "*/*", "application/xml", ""])],
        ["accept-encoding", "gzip, br"],
        ["range", "bytes=0-10"],
      ]),
    1,
  ],
  [(_rng, h) => ok("header-3KiB", [...h, ["x-fuzz", "a".repeat(3000)]]), 1],
  [(rng, h) => broken("header-huge", [...h, ["x-fuzz", "a".repeat(rng.pick([8 * 1024, 64 * 1024, 1024 * 1024]))]]), 1],
  [(rng, h) => broken("headers-many", [...h, ...Array.from({ length: rng.pick([60, 200]) }, (_, i): [string, string] => [`x-h${i}`, String(i)])]), 1],
  [
    (rng, h) => {
      const bad = rng.pick<[string, Buffer | string]>([
        ["x-nul", Buffer.from("a\0b")],
        ["x-cr", Buffer.from("a\rb")],
        ["x-bytes", Buffer.from([0xff, 0xfe, 0x80])],
        ["x-fold", "a\r\n  folded"],
        ["bad name", "v"],
        ["x-empty-name:", "v"],
        ["", "v"],
      ]);
      return broken(`header-malformed`, [...h, bad]);
    },
    1,
  ],
  [(_rng, h) => broken("host.missing", drop(h, "host")), 1],
  [(rng, h) => ok("host.odd", set(h, "host", rng.pick(["evil.example", "", "127.0.0.1:1", "a".repeat(300), "[::1]"]))), 1],
  [
    (_rng, h) =>
      broken("upgrade-websocket", [
        ...h,
        ["connection", "Upgrade"],
        ["upgrade", "websocket"],
        ["sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="],
        ["sec-websocket-version", "13"],
      ]),
    1,
  ],
];

export function mutateHeaders(rng: Prng, headers: Headers, fx: Fixture, auth: AuthKind): HeaderMutation {
  const mutate = rng.weighted(MUTATORS);
  const m = mutate(rng, headers, fx, auth);
  return { ...m, kind: `header.${m.kind}` };
}
