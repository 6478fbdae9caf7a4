/**
 * Served rows are found through the primary key: a v7 recommendation_id leads with the milliseconds it was served
 * at (recommendationId.ts), taken moments before served_at, so an id range a second wider than [from, to)
 * holds every row in it, and served_at then decides exactly.
 */
const ID_TIME_SLACK_MS = 1_000;

/** The recommendation ids that may have been served in [from, to) (see ID_TIME_SLACK_MS). */
export function servedIdRange(from: Date, to: Date): [string, string] {
  return [firstIdAt(from.getTime() - ID_TIME_SLACK_MS), firstIdAt(to.getTime() + ID_TIME_SLACK_MS)];
}

/** The lowest v7 id of millisecond `ms`. */
export function firstIdAt(ms: number): string {
  const h = Math.max(0, Math.min(ms, 2 ** 48 - 1))
    .toString(16)
    .padStart(12, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
}
