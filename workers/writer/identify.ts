import type pg from "pg";
import { EVENT_COLUMN as C, type EventRow } from "../../src/wire/batchRows.js";

/**
 * Each identify event given, in the order given, becomes an alias or is refused (migration 015 says when);
 * answers the 1-based positions, in the arrays, of those refused.
 */
const APPLY_IDENTIFIES = "SELECT apply_identifies($1::integer[], $2::text[], $3::text[], $4::timestamptz[]) AS refused";

/** True for an event that asks to merge one user id into another. */
export function isIdentify(e: EventRow): boolean {
  return e[C.name] === "identify" && e[C.previousUserId] !== null;
}

/**
 * Decides the batch's identify events that this batch stored, in the batch's order, inside its transaction;
 * answers the positions (in the batch's events) of those refused: stored, but the index must not apply them.
 */
export async function applyIdentifies(c: pg.Client, events: readonly EventRow[], notStored: readonly number[]): Promise<number[]> {
  const held = new Set(notStored);
  const positions: number[] = [];
  for (let i = 0; i < events.length; i++) if (isIdentify(events[i]!) && !held.has(i)) positions.push(i);
  if (positions.length === 0) return [];
  const column = (at: number) => positions.map((i) => events[i]![at]);
  const { rows } = await c.query<{ refused: number[] }>(APPLY_IDENTIFIES, [
    column(C.org),
    column(C.previousUserId),
    column(C.userId),
    column(C.occurredAt),
  ]);
  return rows[0]!.refused.map((n) => positions[n - 1]!);
}
