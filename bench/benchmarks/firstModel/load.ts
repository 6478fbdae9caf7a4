import { randomUUID } from "node:crypto";
import type { Interaction } from "../../evaluation/csv.js";
import { sendInArrays } from "../../kit/api.js";

const CATALOG_CHUNK = 10_000;
const USERS_SINCE = "2000-01-01T00:00:00.000Z";
const EVENT_CHUNK = 1_000;
const IN_FLIGHT = 8;

/**
 * The file's items (upserted active, secret key), then, when `upsertUsers` is given, that many users (the file's,
 * then made-up ones who never have an event: a shop that loads its customers before their history), then the
 * interactions as events in time order (publishable key).
 */
export async function loadInteractions(
  baseUrl: string,
  keys: { sk: string; pk: string },
  rows: Interaction[],
  upsertUsers = 0,
): Promise<{ items: number; users: number; events: number; seconds: number }> {
  const items = [...new Set(rows.map((r) => r.item).filter((i) => i !== ""))];
  const catalog = { size: CATALOG_CHUNK, inFlight: IN_FLIGHT };
  await sendInArrays(`${baseUrl}/v1/items/upsert`, keys.sk, items, {
    ...catalog,
    wire: (item_id) => ({ item_id, item_type: "item", status: "active" }),
  });
  const users = upsertUsers > 0 ? [...new Set(rows.map((r) => r.user))] : [];
  for (let k = 0; users.length < upsertUsers; k++) users.push(`idle-${k}`);
  await sendInArrays(`${baseUrl}/v1/users/upsert`, keys.sk, users, {
    ...catalog,
    wire: (user_id) => ({ user_id, status: "active", created_at: USERS_SINCE }),
  });
  const ordered = rows.slice().sort((a, b) => a.atMs - b.atMs);
  const started = performance.now();
  await sendInArrays(`${baseUrl}/v1/events/ingest`, keys.pk, ordered, {
    size: EVENT_CHUNK,
    inFlight: IN_FLIGHT,
    wire: (r) => ({
      user_id: r.user,
      item_id: r.item || null,
      event_family: r.family,
      event_name: r.name,
      event_id: randomUUID(),
      timestamp: new Date(r.atMs).toISOString(),
    }),
  });
  return { items: items.length, users: users.length, events: ordered.length, seconds: (performance.now() - started) / 1000 };
}
