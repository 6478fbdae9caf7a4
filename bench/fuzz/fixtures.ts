/**
 * The accounts, keys and data the fuzz cases start from: organisation A (its owner, members of each role, keys,
 * a catalog, users and events, so that recommend has something to rank), organisation B (for cross-tenant
 * cases), and organisation C, whose key pairs the cases may generate and revoke freely.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { call, type Called, type CallOptions } from "../kit/api.js";
import { registerOrg } from "../kit/org.js";
import { pollUntil } from "../kit/poll.js";
import { logLines } from "../kit/serverLog.js";

export type Fixture = Awaited<ReturnType<typeof createFixture>>;

/** The answer's data when its status is `status`; each call from an address of its own (sign-ins are limited per address). */
async function must(what: string, status: number, url: string, method: string, o: CallOptions = {}): Promise<Called["json"]> {
  const b = randomBytes(3);
  const r = await call(url, { method, ...o, headers: { "x-forwarded-for": `10.${b[0]}.${b[1]}.${b[2]}` } });
  if (r.status !== status) throw new Error(`fixture: ${what} answered ${r.status}: ${r.text}`);
  return r.json.data;
}

const PASSWORD = "fuzzing password 1";

/** The one-time token of the last mail to `to` the server's default mailer printed to its log (at warn). */
function mailedToken(output: () => string, to: string): Promise<string> {
  const token = () =>
    logLines({ output }, "mail (printed, not sent: no mailer configured)")
      .reverse()
      .map((mail) => (mail.to === to ? /"token": "([\w-]+)"/.exec(String(mail.text))?.[1] : undefined))
      .find(Boolean);
  return pollUntil(token, 50, 5_000, () => `fixture: no mail to ${to} in the server's log`);
}

/** Invites a member of `role` to the organisation, accepts with the mailed token and signs in; returns its id and token. */
async function member(url: string, output: () => string, ownerToken: string, role: string) {
  const email = `fuzz-${role.toLowerCase()}-${randomUUID()}@example.com`;
  await must(`invite ${role}`, 201, url + "/v1/members", "POST", { token: ownerToken, json: { email, role } });
  const token = await mailedToken(output, email);
  const joined = await must(`accept ${role}`, 201, url + "/auth/invitations/accept", "POST", { json: { token, password: PASSWORD } });
  const session = await must(`login ${role}`, 200, url + "/auth/login", "POST", { json: { email, password: PASSWORD } });
  return { userId: joined.user.id as string, token: session.token as string, email };
}

export const ITEM_TYPES = ["product", "article"];
export const BRANDS = ["acme", "globex", "initech", "umbrella"];

function catalog(n: number, prefix: string) {
  return Array.from({ length: n }, (_, i) => ({
    item_id: `${prefix}-item-${i}`,
    item_type: ITEM_TYPES[i % 2],
    status: i % 17 === 16 ? "inactive" : "active",
    created_at: new Date(Date.now() - i * 3_600_000).toISOString(),
    attributes: { brand: BRANDS[i % 4], price: 5 + (i % 40), tags: [`t${i % 5}`, `t${i % 7}`] },
  }));
}

function people(n: number, prefix: string) {
  return Array.from({ length: n }, (_, i) => ({ user_id: `${prefix}-user-${i}`, status: "active", created_at: "2024-01-01T00:00:00Z" }));
}

/** Views and purchases with structure (user u prefers items near 3u), so that every strategy has signal. */
function history(users: string[], items: string[], n: number) {
  return Array.from({ length: n }, (_, k) => {
    const u = k % users.length;
    const i = (3 * u + (k % 5) + Math.floor(k / users.length)) % items.length;
    const purchase = k % 9 === 0;
    return {
      user_id: users[u],
      event_family: purchase ? "conversion" : "engagement",
      event_name: purchase ? "purchase" : "view",
      item_id: items[i],
      event_id: randomUUID(),
      timestamp: new Date(Date.now() - (k % 72) * 3_600_000).toISOString(),
    };
  });
}

async function loadData(url: string, o: { pk: string; sk: string }, prefix: string, nItems: number, nUsers: number, nEvents: number) {
  const items = catalog(nItems, prefix);
  const users = people(nUsers, prefix);
  await must("items upsert", 202, url + "/v1/items/upsert", "POST", { key: o.sk, json: items });
  await must("users upsert", 202, url + "/v1/users/upsert", "POST", { key: o.sk, json: users });
  const ids = { items: items.map((i) => i.item_id), users: users.map((u) => u.user_id) };
  await must("events ingest", 202, url + "/v1/events/ingest", "POST", { key: o.pk, json: history(ids.users, ids.items, nEvents) });
  return ids;
}

export async function createFixture(url: string, metricsToken: string, output: () => string) {
  const port = Number(new URL(url).port);
  const [a, b, c] = [await registerOrg(url), await registerOrg(url), await registerOrg(url)];
  const admin = await member(url, output, a.token, "ADMIN");
  const developer = await member(url, output, a.token, "DEVELOPER");
  const plain = await member(url, output, a.token, "MEMBER");
  const patchable = await member(url, output, a.token, "DEVELOPER");

  const cPairs = await must("list C's pairs", 200, url + "/v1/keys", "GET", { token: c.token });
  const revokedPair = await must("generate C's second pair", 201, url + "/v1/keys", "POST", { token: c.token });
  await must("revoke C's second pair", 200, url + `/v1/keys/${revokedPair.key_pair_id}/revoke`, "POST", { token: c.token });

  const data = await loadData(url, a, "a", 60, 30, 900);
  await loadData(url, b, "b", 20, 10, 120);
  return {
    url,
    port,
    a: {
      ...a,
      // Tokens of members of each lesser role (role checks); an account the login example signs in as; a member
      // whose role the PATCH example changes back and forth.
      adminToken: admin.token,
      developerToken: developer.token,
      memberToken: plain.token,
      login: { email: admin.email, password: PASSWORD },
      patchableUserId: patchable.userId,
    },
    b,
    // Key pairs of organisation C: the revoke example picks among them (they get revoked as the run goes).
    c: { token: c.token, pairIds: [cPairs.key_pairs[0].key_pair_id, revokedPair.key_pair_id] as string[] },
    revoked: { pk: revokedPair.publishable_key as string, sk: revokedPair.secret_key as string },
    items: data.items,
    users: data.users,
    metricsToken, // the bearer token the server was started with for GET /metrics
  };
}
