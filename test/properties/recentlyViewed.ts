import type { Scenario } from "./arbitraries/records.js";
import { contractWeight } from "./arbitraries/records.js";

/** What `recently-viewed` must answer for one user once a scenario's data is in. */
export interface RecentlyViewed {
  userId: string;
  /** The user is inactive or deleted: the answer is `fallback` (CONTRACT 5). */
  hidden: boolean;
  /** Every active item the user (or an id identified as the user) engaged with, positively. */
  items: Set<string>;
}

/**
 * The users whose `recently-viewed` answer the scenario determines, and that answer as a set. Users caught in
 * alias chains, cycles or an id identified as two users are left out: the contract says only that history
 * follows `identify`, not how competing or chained ones settle.
 */
export function expectedRecentlyViewed(s: Scenario): RecentlyViewed[] {
  const edges = s.events.filter((e) => e.event_name === "identify" && e.previous_user_id !== undefined && e.previous_user_id !== e.user_id);
  const targetsOf = new Map<string, Set<string>>();
  for (const e of edges) targetsOf.set(e.previous_user_id!, (targetsOf.get(e.previous_user_id!) ?? new Set()).add(e.user_id));
  const targets = new Set(edges.map((e) => e.user_id));
  const cleanPrevious = (p: string) => targetsOf.get(p)!.size === 1 && !targets.has(p);
  const aliasesOf = (u: string) => edges.filter((e) => e.user_id === u).map((e) => e.previous_user_id!);

  const activeItems = new Set(s.items.filter((i) => i.status === "active").map((i) => i.item_id));
  const status = new Map(s.users.map((u) => [u.user_id, u.status]));
  const users = new Set(s.events.map((e) => e.user_id));
  const out: RecentlyViewed[] = [];
  for (const u of users) {
    if (targetsOf.has(u)) continue; // itself identified as someone else
    const aliases = aliasesOf(u);
    if (!aliases.every(cleanPrevious)) continue;
    const people = new Set([u, ...aliases]);
    const items = new Set<string>();
    for (const e of s.events) {
      const engaged = e.event_family === "engagement" && e.event_name !== "identify" && contractWeight(e.event_name) > 0;
      if (engaged && people.has(e.user_id) && typeof e.item_id === "string" && activeItems.has(e.item_id)) items.add(e.item_id);
    }
    const st = status.get(u);
    if (items.size > 0) out.push({ userId: u, hidden: st === "inactive" || st === "deleted", items });
  }
  return out;
}
