import type { Scenario } from "./arbitraries/records.js";
import { contractWeight } from "./arbitraries/records.js";
import { aliasesOf } from "./aliases.js";

/** What `recently-viewed` must answer for one user once a scenario's data is in. */
export interface RecentlyViewed {
  userId: string;
  /** The user is inactive or deleted: the answer is `fallback` (CONTRACT 5). */
  hidden: boolean;
  /** Every active item the user (or an id identified as the user) engaged with, positively. */
  items: Set<string>;
}

/**
 * The users whose `recently-viewed` answer the scenario determines, and that answer as a set: each id answers
 * for the user its identify events settled it into (./aliases.ts), with the history of every id merged there.
 */
export function expectedRecentlyViewed(s: Scenario): RecentlyViewed[] {
  const aliases = aliasesOf(s);
  const activeItems = new Set(s.items.filter((i) => i.status === "active").map((i) => i.item_id));
  const status = new Map(s.users.map((u) => [u.user_id, u.status]));
  const users = new Set(s.events.map((e) => e.user_id));
  const out: RecentlyViewed[] = [];
  for (const id of users) {
    const u = aliases.get(id) ?? id;
    const people = new Set([u, ...[...aliases].filter(([, target]) => target === u).map(([previous]) => previous)]);
    const items = new Set<string>();
    for (const e of s.events) {
      const engaged = e.event_family === "engagement" && e.event_name !== "identify" && contractWeight(e.event_name) > 0;
      if (engaged && people.has(e.user_id) && typeof e.item_id === "string" && activeItems.has(e.item_id)) items.add(e.item_id);
    }
    const st = status.get(u);
    if (items.size > 0) out.push({ userId: id, hidden: st === "inactive" || st === "deleted", items });
  }
  return out;
}
