import type pg from "pg";
import { ALL_ORGS, SNAPSHOT_FENCE_LOCK } from "../wire/indexSnapshots.js";

export { ALL_ORGS };

/**
 * Makes the organisation's snapshots unusable (migration 019), inside the caller's transaction: those stored are
 * deleted, and one being written now is refused at its last step. `erasure`: an erased user must not come back
 * from a snapshot taken before the erasure. `retention`: a restart holds only the events still stored, so a
 * snapshot descending from a load that read the events just removed is not used (docs/operations.md).
 */
export async function fenceSnapshots(c: pg.ClientBase, org: number, kind: "erasure" | "retention"): Promise<void> {
  await c.query("SELECT pg_advisory_xact_lock($1)", [SNAPSHOT_FENCE_LOCK]);
  await c.query(
    `INSERT INTO index_snapshot_fences (org, kind, at) VALUES ($1, $2, now())
     ON CONFLICT (org, kind) DO UPDATE SET at = greatest(index_snapshot_fences.at, EXCLUDED.at)`,
    [org, kind],
  );
  await c.query(`DELETE FROM org_index_snapshots WHERE $1 = ${ALL_ORGS} OR org = $1`, [org]);
}

/** Its own transaction (the retention task's connection runs statements one by one). */
export async function fenceSnapshotsNow(c: pg.Client, org: number, kind: "erasure" | "retention"): Promise<void> {
  await c.query("BEGIN");
  try {
    await fenceSnapshots(c, org, kind);
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
