import type pg from "pg";
import { log } from "../wire/log.js";
import type { Submission } from "./batcher.js";
import type { EventRow, ItemRow, UserRow } from "../wire/batchRows.js";

const event = (r: EventRow) => ({
  event_id: r[1],
  user_id: r[2],
  item_id: r[3],
  event_family: r[4],
  event_name: r[5],
  weight: r[6],
  previous_user_id: r[7],
  recommendation_id: r[8],
  context: r[9],
  timestamp: r[10],
});
const item = (r: ItemRow) => ({ item_id: r[1], item_type: r[2], status: r[3], attributes: r[4], created_at: r[5] });
const user = (r: UserRow) => ({ user_id: r[1], status: r[2], attributes: r[3], created_at: r[4] });

/** A request's records with the API's field names: JSON.stringify escapes what PostgreSQL's text could not hold. */
export function submissionJson(s: Submission): string {
  return JSON.stringify({ events: (s.events ?? []).map(event), items: (s.items ?? []).map(item), users: (s.users ?? []).map(user) });
}

function orgOf(s: Submission): number {
  return (s.events?.[0] ?? s.items?.[0] ?? s.users?.[0])![0];
}

/**
 * Keeps an acknowledged request the database refused on its own (INGEST_ACK=queued) in `ingest_refused`, so that
 * nothing acknowledged is lost. Should that fail too, the log holds the records.
 */
export function keepRefused(pool: pg.Pool, s: Submission, error: string): void {
  const records = submissionJson(s);
  const org = orgOf(s);
  pool.query("INSERT INTO ingest_refused (org, error, records) VALUES ($1, $2, $3)", [org, error, records]).then(
    () => log.error("an acknowledged request was refused by the database; its records are kept in ingest_refused", { org, error }),
    (err: Error) =>
      log.error("an acknowledged request was refused by the database and could not be kept", { org, error, keepError: err.message, records }),
  );
}
