import type pg from "pg";

/** How long a logged batch stays for every process: one that lost its connection catches up from it. */
export const KEEP_MINUTES = 5;
/** A process whose row in batch_log_readers was refreshed this recently (every 30 s) holds what it has not read. */
export const LIVE_MINUTES = 2;
/**
 * Past this age a batch goes even if a live process has not read it, and a process silent this long is forgotten:
 * a process stuck in its load or its reads, while still refreshing its row, must not grow the log for ever.
 */
export const CAP_MINUTES = 30;

/**
 * One statement. A batch older than KEEP_MINUTES goes unless a live process other than its own has not read it
 * (its transaction is not committed in that process's snapshot); past CAP_MINUTES it goes all the same. Every
 * process not forgotten is charged in `missed` with the batches pruned that it had not read, which it reports
 * (src/cluster/logReader.ts); a row's snapshot may lag its process's reads by up to 30 s, so a batch read in
 * those 30 s may be charged too. The readers are a handful of rows: the check is a few function calls per old
 * batch, on the rows the `at` index finds, as before.
 */
const PRUNE = `WITH readers AS (
  SELECT origin, snapshot, seen_at > now() - interval '${LIVE_MINUTES} minutes' AS live
  FROM batch_log_readers WHERE seen_at >= now() - interval '${CAP_MINUTES} minutes'
), gone AS (
  DELETE FROM batch_log b
  WHERE b.at < now() - interval '${KEEP_MINUTES} minutes'
    AND (b.at < now() - interval '${CAP_MINUTES} minutes' OR NOT EXISTS (
      SELECT 1 FROM readers r WHERE r.live AND r.origin <> b.origin AND NOT pg_visible_in_snapshot(b.xid, r.snapshot)))
  RETURNING b.xid, b.origin
), missed AS (
  SELECT r.origin, count(*) AS n
  FROM readers r JOIN gone g ON g.origin <> r.origin AND NOT pg_visible_in_snapshot(g.xid, r.snapshot)
  GROUP BY r.origin
), charged AS (
  UPDATE batch_log_readers r SET missed = r.missed + missed.n FROM missed WHERE r.origin = missed.origin
), forgotten AS (
  DELETE FROM batch_log_readers WHERE seen_at < now() - interval '${CAP_MINUTES} minutes'
)
SELECT count(*)::int AS pruned FROM gone`;

/** Prunes `batch_log` by age, except what a live process has not read yet (docs/scaling.md, Pruning); answers how many went. */
export async function pruneBatchLog(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ pruned: number }>(PRUNE);
  return rows[0]!.pruned;
}
