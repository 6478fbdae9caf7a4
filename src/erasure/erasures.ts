import { randomUUID } from "node:crypto";
import { fenceSnapshots } from "../db/snapshotFences.js";
import type pg from "pg";
import { recordAudit, type OrgCaller } from "../accounts/audit.js";
import { inTransaction, query } from "../db/transaction.js";
import { appError } from "../errors.js";
import type { Erasure } from "./schemas.js";

/** CLUSTER=1: the NOTIFY channel of erasures (payload "erasure id origin"), for the other processes' indexes. */
export const ERASURE_CHANNEL = "recsvc_erasures";

export interface NewErasure {
  id: string;
  users: number;
  aliases: number;
}

/**
 * Records an erasure and, in the same transaction, deletes its users' rows (and their status history) and every
 * identity alias from or to them: a restart after the commit knows none of them as users. Their events and
 * served recommendations follow in chunks (erasureRunner.ts). At most `pendingMax` erasures of one organisation
 * run at once (each holds up to 1,000 ids until done); one more is 429 `rate_limited`.
 */
export async function requestErasure(
  pool: pg.Pool,
  who: OrgCaller,
  userIds: readonly string[],
  pendingMax: number,
  origin: string,
): Promise<NewErasure> {
  const ids = [...new Set(userIds)];
  return inTransaction(pool, async (c) => {
    // One request of an organisation at a time past this point, so the count below cannot be passed by two at once.
    await c.query("SELECT pg_advisory_xact_lock(727275, $1)", [who.org]);
    const pending = await c.query<{ n: string }>("SELECT count(*) AS n FROM erasures WHERE org = $1 AND done_at IS NULL", [who.org]);
    if (Number(pending.rows[0]!.n) >= pendingMax) {
      throw appError(
        "rate_limited",
        "erasures",
        { running: pendingMax },
        {
          "Retry-After": "10",
        },
      );
    }
    const id = randomUUID();
    const users = (await c.query("DELETE FROM users WHERE org = $1 AND user_id = ANY($2)", [who.org, ids])).rowCount ?? 0;
    await c.query("DELETE FROM status_changes WHERE org = $1 AND kind = 'user' AND id = ANY($2)", [who.org, ids]);
    const aliases =
      (await c.query("DELETE FROM identity_aliases WHERE org = $1 AND (previous_user_id = ANY($2) OR user_id = ANY($2))", [who.org, ids])).rowCount ??
      0;
    await c.query("INSERT INTO erasures (id, org, user_ids, named, users, aliases) VALUES ($1, $2, $3, $4, $5, $6)", [
      id,
      who.org,
      ids,
      ids.length,
      users,
      aliases,
    ]);
    // Snapshots of the index taken before this hold the users: a restart must not bring them back.
    await fenceSnapshots(c, who.org, "erasure");
    await recordAudit(c, who.actor, { action: "users.erased", target: `erasure ${id}: ${ids.length} users, by ${who.via}`, ip: who.ip });
    await c.query("SELECT pg_notify($1, $2)", [ERASURE_CHANNEL, `${id} ${origin}`]);
    return { id, users: ids.length, aliases };
  });
}

interface ErasureRow {
  id: string;
  requested_at: Date;
  done_at: Date | null;
  named: number;
  users: number;
  aliases: number;
  events: string;
  served: string;
}

/** An erasure of the organisation, pending or done, with what it has deleted so far; 404 when it has none of this id. */
export async function readErasure(pool: pg.Pool, org: number, id: string): Promise<Erasure> {
  const rows = await query<ErasureRow>(
    pool,
    `SELECT id, requested_at, done_at, named, users, aliases, events, served FROM erasures WHERE id = $1 AND org = $2`,
    [id, org],
  );
  const r = rows[0];
  if (!r) throw appError("not_found", "erasure", { id });
  return {
    erasure_id: r.id,
    status: r.done_at === null ? "pending" : "done",
    requested_at: r.requested_at.toISOString(),
    done_at: r.done_at?.toISOString() ?? null,
    users: r.named,
    deleted: { users: r.users, aliases: r.aliases, events: Number(r.events), served_recommendations: Number(r.served) },
  };
}
