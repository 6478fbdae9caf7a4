import { randomBytes } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { appError } from "../errors.js";
import { KEY_CHANNEL, ORG_NOTICE, type KeyCache } from "../auth/keyCache.js";
import { requireRole, type Role } from "../auth/roles.js";
import { inTransaction, query } from "../db/transaction.js";
import { recordAudit, type AuditAction } from "./audit.js";
import type { Account } from "./session.js";

const MANAGERS: readonly Role[] = ["OWNER", "ADMIN"];
/** 32 random bytes: the HMAC-SHA256 key's full strength. */
const SECRET_BYTES = 32;

export const IdentityVerificationSchema = z
  .strictObject({
    enabled: z.boolean().meta({ description: "Publishable-key requests must prove a signed-in user with `user_hash`." }),
    has_secret: z.boolean().meta({ description: "Whether an identity secret was generated (it is never shown again)." }),
    secret_rotated_at: z.iso.datetime().nullable(),
  })
  .meta({ description: "The organisation's identity verification." });
export type IdentityVerification = z.infer<typeof IdentityVerificationSchema>;

export const SetIdentityVerificationSchema = z
  .strictObject({ enabled: z.boolean() })
  .meta({ description: "Turns identity verification on or off.", examples: [{ enabled: true }] });

export const NewIdentitySecretSchema = z
  .strictObject({
    secret: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: "The HMAC-SHA256 key of `user_hash`, used as this text; shown in this answer only. Keep it on your server." }),
    enabled: z.boolean(),
    secret_rotated_at: z.iso.datetime(),
  })
  .meta({ description: "A new identity secret; the previous one stops verifying at once." });
export type NewIdentitySecret = z.infer<typeof NewIdentitySecretSchema>;

interface SettingsRow {
  enabled: boolean;
  has_secret: boolean;
  rotated_at: Date | null;
}

const SELECT_SETTINGS = `SELECT coalesce(iv.enabled, false) AS enabled, iv.secret IS NOT NULL AS has_secret, iv.rotated_at
  FROM organisations o LEFT JOIN identity_verification iv ON iv.org = o.seq WHERE o.id = $1`;

function shown(row: SettingsRow): IdentityVerification {
  return { enabled: row.enabled, has_secret: row.has_secret, secret_rotated_at: row.rotated_at?.toISOString() ?? null };
}

export async function getIdentityVerification(pool: pg.Pool, account: Account): Promise<IdentityVerification> {
  requireRole(account.role, MANAGERS, "read identity verification");
  const rows = await query<SettingsRow>(pool, SELECT_SETTINGS, [account.orgId]);
  return shown(rows[0]!);
}

/**
 * Every process's key cache carries the setting (src/auth/keyCache.ts): the NOTIFY in the transaction reaches
 * the others after the commit, and this one's cache is refreshed before the answer.
 */
async function changed(c: pg.PoolClient, account: Account, action: AuditAction, ip: string): Promise<void> {
  await recordAudit(c, account, { action, target: null, ip });
  await c.query("SELECT pg_notify($1, $2)", [KEY_CHANNEL, `${ORG_NOTICE}:${account.orgId}`]);
}

export async function setIdentityVerification(
  pool: pg.Pool,
  cache: KeyCache,
  account: Account,
  enabled: boolean,
  ip: string,
): Promise<IdentityVerification> {
  requireRole(account.role, MANAGERS, "change identity verification");
  const row = await inTransaction(pool, async (c) => {
    const found = await c.query<{ secret: string | null; enabled: boolean }>(
      "SELECT iv.secret, iv.enabled FROM organisations o JOIN identity_verification iv ON iv.org = o.seq WHERE o.id = $1 FOR UPDATE OF iv",
      [account.orgId],
    );
    const current = found.rows[0];
    if (enabled && current?.secret == null) {
      throw appError("conflict", "identitySecretFirst");
    }
    if (current !== undefined && current.enabled !== enabled) {
      await c.query("UPDATE identity_verification SET enabled = $2 WHERE org = (SELECT seq FROM organisations WHERE id = $1)", [
        account.orgId,
        enabled,
      ]);
      await changed(c, account, enabled ? "identity_verification.enabled" : "identity_verification.disabled", ip);
    }
    return (await c.query<SettingsRow>(SELECT_SETTINGS, [account.orgId])).rows[0]!;
  });
  await cache.refreshOrg(account.orgId);
  return shown(row);
}

/** A new secret replaces the old at once: sites must deploy it to their servers before (or as) they rotate. */
export async function rotateIdentitySecret(pool: pg.Pool, cache: KeyCache, account: Account, ip: string): Promise<NewIdentitySecret> {
  requireRole(account.role, MANAGERS, "generate the identity secret");
  const secret = randomBytes(SECRET_BYTES).toString("hex");
  const row = await inTransaction(pool, async (c) => {
    const stored = await c.query<{ enabled: boolean; rotated_at: Date }>(
      `INSERT INTO identity_verification (org, secret, rotated_at) SELECT seq, $2, now() FROM organisations WHERE id = $1
       ON CONFLICT (org) DO UPDATE SET secret = EXCLUDED.secret, rotated_at = EXCLUDED.rotated_at RETURNING enabled, rotated_at`,
      [account.orgId, secret],
    );
    await changed(c, account, "identity_verification.secret_rotated", ip);
    return stored.rows[0]!;
  });
  await cache.refreshOrg(account.orgId);
  return { secret, enabled: row.enabled, secret_rotated_at: row.rotated_at.toISOString() };
}
