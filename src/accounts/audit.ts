import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { z } from "zod";
import { query } from "../db/transaction.js";
import { log } from "../wire/log.js";
import { isUnavailable } from "../wire/pgErrors.js";

export const AuditActionSchema = z.enum([
  "key_pair.generated",
  "key_pair.viewed", // no longer written (listing keys reveals nothing secret); kept for the entries written before
  "key_pair.revoked",
  "member.added",
  "member.role_changed",
  "upload.items",
  "upload.users",
  "upload.events",
  "auth.login",
  "auth.logout",
  "auth.password_changed",
  "auth.password_reset_requested",
  "auth.password_reset",
  "member.removed",
  "member.invited",
  "member.joined",
  "identity_verification.enabled",
  "identity_verification.disabled",
  "identity_verification.secret_rotated",
  "users.erased",
  "retention.changed",
  "rule.created",
  "rule.updated",
  "rule.deleted",
  "rate_limit.changed",
  "organisation.created",
  "experiment.created",
  "experiment.stopped",
]);
export type AuditAction = z.infer<typeof AuditActionSchema>;

/** Who manages an organisation's erasures, rules or experiments, as their audit entries name them. */
export interface OrgCaller {
  org: number;
  actor: AuditActor;
  /** Named in the audit entry: the key pair of the secret key, or the account's email. */
  via: string;
  ip: string;
}

export interface AuditEntry {
  action: AuditAction;
  target: string | null;
  ip: string;
}

type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

export async function recordAudit(db: Queryable, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await db.query("INSERT INTO audit_log (org_id, actor_id, actor_email, action, target, ip) VALUES ($1, $2, $3, $4, $5, $6)", [
    actor.orgId,
    actor.userId,
    actor.email,
    entry.action,
    entry.target,
    entry.ip,
  ]);
}

/** How long recordAuditPatiently keeps trying while the database has no connection to spare. */
const PATIENT_AUDIT_MS = 30_000;

/**
 * recordAudit for an action that has already taken effect (an upload's rows are stored): a busy pool (no
 * connection free within its connect timeout) or a short outage is waited out, retrying for up to
 * PATIENT_AUDIT_MS, rather than turning the action's answer into an error. False, with the entry in the
 * server's log, if it could not be written.
 */
export async function recordAuditPatiently(pool: pg.Pool, actor: AuditActor, entry: AuditEntry): Promise<boolean> {
  const deadline = performance.now() + PATIENT_AUDIT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await recordAudit(pool, actor, entry);
      return true;
    } catch (err) {
      if (!isUnavailable(err) || performance.now() > deadline) {
        log.error("an audit entry could not be written", {
          org: actor.orgId,
          actor: actor.email,
          ...entry,
          error: (err as Error)?.message ?? String(err),
        });
        return false;
      }
      await sleep(Math.min(1000, 100 * attempt));
    }
  }
}

export const AuditQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.coerce.number().int().positive().optional(),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

export const AuditLogSchema = z.strictObject({
  entries: z.array(
    z.strictObject({
      id: z.number().int().positive(),
      at: z.iso.datetime(),
      actor: z.strictObject({ user_id: z.uuid().nullable(), email: z.string().nullable() }),
      action: AuditActionSchema,
      target: z.string().nullable(),
      ip: z.string().nullable(),
    }),
  ),
  next_before: z.number().int().positive().nullable().meta({ description: "Pass as `before` for the next page; null on the last page." }),
});
export type AuditLog = z.infer<typeof AuditLogSchema>;

interface AuditRow {
  id: string;
  at: Date;
  actor_id: string | null;
  actor_email: string | null;
  action: AuditAction;
  target: string | null;
  ip: string | null;
}

/** Newest first; `before` is the id of the last entry of the previous page. */
export async function listAudit(pool: pg.Pool, orgId: string, q: AuditQuery): Promise<AuditLog> {
  const rows = await query<AuditRow>(
    pool,
    `SELECT id, at, actor_id, actor_email, action, target, ip FROM audit_log
     WHERE org_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [orgId, q.before ?? null, q.limit],
  );
  const entries = rows.map((r) => ({
    id: Number(r.id),
    at: r.at.toISOString(),
    actor: { user_id: r.actor_id, email: r.actor_email },
    action: r.action,
    target: r.target,
    ip: r.ip,
  }));
  const next = entries.length === q.limit ? entries[entries.length - 1].id : null;
  return { entries, next_before: next };
} /**
 * Who did it: an account (session.ts's Account has these, and more), named here so that audit.ts imports no
 * session; or the organisation's secret key (no account: user id and email null, the entry's target names the key).
 */
export interface AuditActor {
  orgId: string;
  userId: string | null;
  email: string | null;
}
