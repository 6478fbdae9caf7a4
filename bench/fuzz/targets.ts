/**
 * Every route of the README's table, each with a valid example request drawn from the case's generator: the
 * starting point the mutators bend. A valid example sent as is gets a 2xx (or a 409 where state decides).
 */
import { ITEM_STRATEGIES, STRATEGIES, USER_STRATEGIES } from "../../src/wire/strategies.js";
import type { Prng } from "./prng.js";
import { BRANDS, ITEM_TYPES, type Fixture } from "./fixtures.js";

type BodyFormat = "json" | "csv" | "ndjson" | "none";
/** Which credential the route takes, so that header mutations know what to swap. */
export type AuthKind = "none" | "token" | "publishable" | "secret" | "metrics";

export interface Example {
  method: string;
  /** Path and query. */
  path: string;
  headers: Array<[string, string]>;
  body: Buffer;
  format: BodyFormat;
  /** The body as a value when it is JSON (or NDJSON: one value per line), for the JSON-aware mutations. */
  value?: unknown;
}

export interface Target {
  route: string;
  /** How often the route is drawn, relative to the others. */
  weight: number;
  auth: AuthKind;
  example(rng: Prng, fx: Fixture): Example;
}

const ROLES = ["ADMIN", "DEVELOPER", "MEMBER"];

function credential(auth: AuthKind, fx: Fixture): Array<[string, string]> {
  if (auth === "token") return [["authorization", `Bearer ${fx.a.token}`]];
  if (auth === "publishable") return [["x-api-key", fx.a.pk]];
  if (auth === "secret") return [["x-api-key", fx.a.sk]];
  if (auth === "metrics") return [["authorization", `Bearer ${fx.metricsToken}`]];
  return [];
}

function baseHeaders(rng: Prng, fx: Fixture): Array<[string, string]> {
  const h: Array<[string, string]> = [
    ["host", `127.0.0.1:${fx.port}`],
    ["user-agent", "recsvc-fuzz"],
  ];
  if (rng.chance(0.5)) h.push(["x-forwarded-for", `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(0, 255)}`]);
  if (rng.chance(0.3)) h.push(["accept", "application/json"]);
  return h;
}

function json(method: string, path: string, value: unknown): Omit<Example, "headers"> & { contentType: string } {
  return { method, path, body: Buffer.from(JSON.stringify(value)), format: "json", value, contentType: "application/json" };
}

function none(method: string, path: string): Omit<Example, "headers"> & { contentType?: string } {
  return { method, path, body: Buffer.alloc(0), format: "none" };
}

/** A target from its route, credential and body maker; headers (host, credential, content type) are added here. */
function target(
  route: string,
  weight: number,
  auth: AuthKind,
  make: (rng: Prng, fx: Fixture) => Omit<Example, "headers"> & { contentType?: string },
): Target {
  return {
    route,
    weight,
    auth,
    example(rng, fx) {
      const { contentType, ...e } = make(rng, fx);
      const headers = [...baseHeaders(rng, fx), ...credential(auth, fx)];
      if (contentType) headers.push(["content-type", contentType]);
      return { ...e, headers };
    },
  };
}

const iso = (rng: Prng, maxHoursAgo: number) => new Date(Date.now() - rng.int(0, maxHoursAgo) * 3_600_000).toISOString();

function itemRecord(rng: Prng, fx: Fixture) {
  const r: Record<string, unknown> = {
    item_id: rng.chance(0.7) ? rng.pick(fx.items) : `fuzz-item-${rng.word()}`,
    item_type: rng.pick(ITEM_TYPES),
    status: rng.pick(["active", "active", "inactive"]),
  };
  if (rng.chance(0.7)) r.attributes = { brand: rng.pick(BRANDS), price: rng.int(1, 99), tags: [rng.word(), rng.word()] };
  if (rng.chance(0.5)) r.created_at = iso(rng, 5000);
  return r;
}

function userRecord(rng: Prng, fx: Fixture) {
  const r: Record<string, unknown> = {
    user_id: rng.chance(0.7) ? rng.pick(fx.users) : `fuzz-user-${rng.word()}`,
    status: "active",
    created_at: iso(rng, 50000),
  };
  if (rng.chance(0.5)) r.attributes = { country: rng.pick(["fr", "de", "jp"]), age: rng.int(18, 90) };
  return r;
}

function eventRecord(rng: Prng, fx: Fixture) {
  const user = rng.pick(fx.users);
  const kind = rng.int(0, 5);
  const e: Record<string, unknown> =
    kind === 0
      ? { user_id: user, event_family: "system", event_name: "identify", previous_user_id: `anon-${rng.word()}` }
      : kind === 1
        ? { user_id: user, event_family: "conversion", event_name: "purchase", item_id: rng.pick(fx.items), recommendation_id: rng.uuid() }
        : kind === 2
          ? {
              user_id: user,
              event_family: "engagement",
              event_name: rng.pick(["add_to_cart", "like", "custom.thing-1"]),
              item_id: rng.pick(fx.items),
            }
          : { user_id: user, event_family: "engagement", event_name: "view", item_id: rng.chance(0.9) ? rng.pick(fx.items) : null };
  if (rng.chance(0.8)) e.event_id = rng.uuid();
  if (rng.chance(0.5)) e.timestamp = iso(rng, 48);
  if (rng.chance(0.3)) e.context = { page: "/p/" + rng.word(), position: rng.int(1, 20) };
  return e;
}

/** One record or an array of a few. */
function records(rng: Prng, fx: Fixture, make: (rng: Prng, fx: Fixture) => Record<string, unknown>): unknown {
  return rng.chance(0.3) ? make(rng, fx) : Array.from({ length: rng.int(1, 4) }, () => make(rng, fx));
}

function recommendBody(rng: Prng, fx: Fixture) {
  const strategy = rng.pick(STRATEGIES);
  const b: Record<string, unknown> = rng.chance(0.1) && strategy === "personalized" ? {} : { strategy };
  if (USER_STRATEGIES.has(strategy) || rng.chance(0.2)) b.user_id = rng.pick(fx.users);
  if (ITEM_STRATEGIES.has(strategy)) b.context_item_id = rng.pick(fx.items);
  if (rng.chance(0.3))
    b.filters = rng.pick([
      { brand: rng.pick(BRANDS) },
      { brand: [rng.pick(BRANDS), rng.pick(BRANDS)] },
      { price: { min: 5, max: 30 } },
      { tags: "t1" },
    ]);
  if (rng.chance(0.2)) b.item_type = rng.pick(ITEM_TYPES);
  if (rng.chance(0.2)) b.exclude_item_ids = [rng.pick(fx.items), rng.pick(fx.items)];
  if (rng.chance(0.2)) b.exclude_seen = rng.chance(0.5);
  if (rng.chance(0.2)) b.fields = ["brand", "price"];
  if (rng.chance(0.5)) b.limit = rng.int(1, 100);
  if (rng.chance(0.3)) b.page = rng.int(1, 5);
  return b;
}

const CSV_HEAD = { items: "item_id,item_type,status,created_at,price,brand", users: "user_id,status,created_at,country,age" };

function csvRow(rng: Prng, fx: Fixture, kind: "items" | "users"): string {
  if (kind === "items") return [rng.pick(fx.items), rng.pick(ITEM_TYPES), "active", iso(rng, 5000), rng.int(1, 99), rng.pick(BRANDS)].join(",");
  return [rng.pick(fx.users), "active", iso(rng, 50000), rng.pick(["fr", "de"]), rng.int(18, 90)].join(",");
}

function upload(kind: "items" | "users", format: "csv" | "ndjson" | "json") {
  return (rng: Prng, fx: Fixture) => {
    const path = `/v1/upload/${kind}`;
    const make = kind === "items" ? itemRecord : userRecord;
    const n = rng.int(1, 6);
    if (format === "csv") {
      const text = [CSV_HEAD[kind], ...Array.from({ length: n }, () => csvRow(rng, fx, kind))].join("\n") + "\n";
      return { method: "POST", path, body: Buffer.from(text), format: "csv" as const, contentType: "text/csv" };
    }
    const values = Array.from({ length: n }, () => make(rng, fx));
    if (format === "json") return { ...json("POST", path, values) };
    const text = values.map((v) => JSON.stringify(v)).join("\n") + "\n";
    return { method: "POST", path, body: Buffer.from(text), format: "ndjson" as const, value: values, contentType: "application/x-ndjson" };
  };
}

const UNKNOWN = [
  "/",
  "/v2/recommend",
  "/v1",
  "/v1/",
  "/api",
  "/api/v1",
  "/favicon.ico",
  "/v1/recommend/extra",
  "/v1/keys/x",
  "/dashboard/missing.js",
  "/.env",
  "/auth",
  "/metricsx",
];

const TARGETS: Target[] = [
  target("GET /healthz", 3, "none", () => none("GET", "/healthz")),
  target("GET /readyz", 3, "none", () => none("GET", "/readyz")),
  target("POST /auth/register", 2, "none", (rng) =>
    json("POST", "/auth/register", {
      email: `fuzz-${rng.word(8, 16)}@example.com`,
      password: "fuzzing password 2",
      organisation: `Fuzz ${rng.word()}`,
    }),
  ),
  target("POST /auth/login", 3, "none", (_rng, fx) => json("POST", "/auth/login", fx.a.login)),
  target("POST /auth/logout", 2, "none", () => none("POST", "/auth/logout")),
  target("GET /v1/me", 3, "token", () => none("GET", "/v1/me")),
  target("POST /v1/keys", 2, "token", () => none("POST", "/v1/keys")),
  target("GET /v1/keys", 3, "token", () => none("GET", "/v1/keys")),
  target("POST /v1/keys/:id/revoke", 3, "token", (rng, fx) => none("POST", `/v1/keys/${rng.pick(fx.c.pairIds)}/revoke`)),
  target("POST /v1/members", 1, "token", (rng) =>
    json("POST", "/v1/members", { email: `fuzz-m-${rng.word(8, 16)}@example.com`, role: rng.pick(ROLES) }),
  ),
  // A random id: removing the fixture's members would take the other cases' tokens away.
  target("DELETE /v1/members/:id", 1, "token", (rng) =>
    none("DELETE", `/v1/members/${rng.pick(["00000000-0000-4000-8000-000000000000", rng.word(8, 16)])}`),
  ),
  // Never the right old password: a change would end the sessions the other cases use.
  target("POST /v1/me/password", 1, "token", (rng) =>
    json("POST", "/v1/me/password", { old_password: `not it ${rng.word()}`, new_password: "fuzzing password 4" }),
  ),
  target("POST /auth/password-reset", 1, "none", (rng) => json("POST", "/auth/password-reset", { email: `fuzz-r-${rng.word(8, 16)}@example.com` })),
  target("POST /auth/password-reset/confirm", 1, "none", (rng) =>
    json("POST", "/auth/password-reset/confirm", { token: rng.word(20, 43), new_password: "fuzzing password 5" }),
  ),
  target("POST /auth/invitations/accept", 1, "none", (rng) =>
    json("POST", "/auth/invitations/accept", { token: rng.word(20, 43), password: "fuzzing password 6" }),
  ),
  target("GET /v1/members", 3, "token", () => none("GET", "/v1/members")),
  target("PATCH /v1/members/:id", 3, "token", (rng, fx) => json("PATCH", `/v1/members/${fx.a.patchableUserId}`, { role: rng.pick(ROLES) })),
  target("GET /v1/audit-log", 3, "token", (rng) =>
    none("GET", rng.pick(["/v1/audit-log", `/v1/audit-log?limit=${rng.int(1, 200)}`, `/v1/audit-log?limit=5&before=${rng.int(1, 1000)}`])),
  ),
  target("POST /v1/upload/items (csv)", 3, "token", upload("items", "csv")),
  target("POST /v1/upload/items (ndjson)", 3, "token", upload("items", "ndjson")),
  target("POST /v1/upload/items (json)", 3, "token", upload("items", "json")),
  target("POST /v1/upload/users (csv)", 2, "token", upload("users", "csv")),
  target("POST /v1/upload/users (ndjson)", 2, "token", upload("users", "ndjson")),
  target("POST /v1/upload/users (json)", 2, "token", upload("users", "json")),
  target("POST /v1/items/upsert", 8, "secret", (rng, fx) => json("POST", "/v1/items/upsert", records(rng, fx, itemRecord))),
  target("POST /v1/users/upsert", 6, "secret", (rng, fx) => json("POST", "/v1/users/upsert", records(rng, fx, userRecord))),
  target("POST /v1/events/ingest", 10, "publishable", (rng, fx) => json("POST", "/v1/events/ingest", records(rng, fx, eventRecord))),
  target("POST /v1/recommend", 10, "publishable", (rng, fx) => json("POST", "/v1/recommend", recommendBody(rng, fx))),
  target("GET /v1/analytics/strategies", 3, "token", (rng) =>
    none(
      "GET",
      rng.pick(["/v1/analytics/strategies", `/v1/analytics/strategies?from=${iso(rng, 2000)}&to=${new Date(Date.now() + 3_600_000).toISOString()}`]),
    ),
  ),
  // A fresh scenario each time: 201 until the organisation's ORG_MAX_EXPERIMENTS, then 403 (state decides).
  target("POST /v1/experiments", 1, "token", (rng) =>
    json("POST", "/v1/experiments", {
      name: `fuzz ${rng.word()}`,
      scenario: `fuzz-${rng.word(8, 16)}`,
      variants: [
        { name: "A", share: 0.5 },
        { name: "B", share: 0.5, strategy: rng.pick(STRATEGIES) },
      ],
      holdout: rng.pick([0, 0.05, 0.5]),
    }),
  ),
  target("GET /v1/experiments", 2, "token", () => none("GET", "/v1/experiments")),
  // A random id: stopping the fixture's experiments would change what the recommend cases meet.
  target("POST /v1/experiments/:id/stop", 1, "token", (rng) =>
    none("POST", `/v1/experiments/${rng.pick(["00000000-0000-4000-8000-000000000000", rng.word(8, 16)])}/stop`),
  ),
  target("GET /v1/analytics/experiments/:id", 1, "token", (rng) =>
    none("GET", `/v1/analytics/experiments/${rng.pick(["00000000-0000-4000-8000-000000000000", rng.word(8, 16)])}`),
  ),
  target("GET /dashboard", 2, "none", (rng) => none("GET", rng.pick(["/dashboard", "/dashboard/", "/dashboard/app.js", "/dashboard/style.css"]))),
  target("GET /metrics", 1, "metrics", () => none("GET", "/metrics")),
  target("GET /openapi.json", 1, "none", () => none("GET", "/openapi.json")),
  target("GET /docs", 1, "none", (rng) => none("GET", rng.pick(["/docs", "/docs/style.css"]))),
  target("GET /sdk", 1, "none", () => none("GET", "/sdk/recommendations.js")),
  target("unknown path", 2, "none", (rng) => none(rng.pick(["GET", "POST"]), rng.chance(0.8) ? rng.pick(UNKNOWN) : `/${rng.word()}/${rng.word()}`)),
];

export function pickTarget(rng: Prng): Target {
  return rng.weighted(TARGETS.map((t) => [t, t.weight] as const));
}
