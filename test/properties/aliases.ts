import type { Scenario } from "./arbitraries/records.js";

/**
 * previous id → user, as migration 015's rule settles a scenario's identify events: in the order sent (the
 * scenario's users are upserted first), whatever their timestamps. Refused: a previous id that is the user or
 * the user's own alias target, is already an alias, absorbed another id, or is an upserted user. An accepted
 * alias names the user's own target when the user is itself an alias.
 */
export function aliasesOf(s: Pick<Scenario, "users" | "events">): Map<string, string> {
  const upserted = new Set(s.users.map((u) => u.user_id));
  const aliases = new Map<string, string>();
  const targets = new Set<string>();
  for (const e of s.events) {
    const previous = e.previous_user_id;
    if (e.event_name !== "identify" || previous === undefined) continue;
    const target = aliases.get(e.user_id) ?? e.user_id;
    if (target === previous || aliases.has(previous) || targets.has(previous) || upserted.has(previous)) continue;
    aliases.set(previous, target);
    targets.add(target);
  }
  return aliases;
}
