import { randomUUID } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { appError } from "../errors.js";
import { KEY_CHANNEL, type KeyCache } from "../auth/keyCache.js";
import { keyDigest, maskKey, newKeyPair, PUBLISHABLE_PREFIX, SECRET_PREFIX } from "../auth/keys.js";
import { requireRole, type Role } from "../auth/roles.js";
import { inTransaction, query } from "../db/transaction.js";
import { recordAudit } from "./audit.js";
import type { Account } from "./session.js";

/** One pair at a time, a second only while rotating (spec 2.6). */
export const MAX_ACTIVE_PAIRS = 2;
const MANAGERS: readonly Role[] = ["OWNER", "ADMIN"];
const VIEWERS: readonly Role[] = ["OWNER", "ADMIN", "DEVELOPER"];

const KeyPairStatusSchema = z.enum(["active", "revoked"]);
const Instant = z.iso.datetime();

export const NewKeyPairSchema = z
  .strictObject({
    key_pair_id: z.uuid(),
    publishable_key: z
      .string()
      .regex(new RegExp(`^${PUBLISHABLE_PREFIX}`))
      .meta({ description: "For events ingest and recommend; public by design." }),
    secret_key: z
      .string()
      .regex(new RegExp(`^${SECRET_PREFIX}`))
      .meta({ description: "For item and user upserts; shown in this answer only." }),
    created_at: Instant,
  })
  .meta({ description: "A new key pair; its secret key is never shown again." });
export type NewKeyPair = z.infer<typeof NewKeyPairSchema>;

export const KeyPairListSchema = z.strictObject({
  key_pairs: z.array(
    z.strictObject({
      key_pair_id: z.uuid(),
      status: KeyPairStatusSchema,
      created_at: Instant,
      revoked_at: Instant.nullable(),
      publishable_key: z
        .string()
        .meta({ description: "In full: it is public by design, and the roles that may list keys are the ones that integrate it." }),
      secret_key: z.string().meta({ description: "Always masked: `svc_sk_…` and its last 4 characters." }),
    }),
  ),
});
export type KeyPairList = z.infer<typeof KeyPairListSchema>;

export const RevokedKeyPairSchema = z.strictObject({ key_pair_id: z.uuid(), status: KeyPairStatusSchema, revoked_at: Instant.nullable() });
export type RevokedKeyPair = z.infer<typeof RevokedKeyPairSchema>;
type KeyPairStatus = z.infer<typeof KeyPairStatusSchema>;

export async function generateKeyPair(pool: pg.Pool, cache: KeyCache, account: Account, ip: string): Promise<NewKeyPair> {
  requireRole(account.role, MANAGERS, "generate keys");
  const { publishable, secret } = newKeyPair();
  const id = randomUUID();
  const created = await inTransaction(pool, async (c) => {
    // Locking the organisation row serialises concurrent generations, so the cap holds.
    await c.query("SELECT 1 FROM organisations WHERE id = $1 FOR UPDATE", [account.orgId]);
    const active = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM key_pairs WHERE org_id = $1 AND status = 'active'", [account.orgId]);
    if (active.rows[0].n >= MAX_ACTIVE_PAIRS) {
      throw appError("conflict", "keyPairsActive", { max: MAX_ACTIVE_PAIRS });
    }
    const row = await c.query<{ created_at: Date }>(
      `INSERT INTO key_pairs (id, org_id, publishable_key, publishable_digest, secret_digest, secret_last4)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`,
      [id, account.orgId, publishable, keyDigest(publishable), keyDigest(secret), secret.slice(-4)],
    );
    await recordAudit(c, account, { action: "key_pair.generated", target: id, ip });
    await c.query("SELECT pg_notify($1, $2)", [KEY_CHANNEL, `generated:${id}`]);
    return row.rows[0].created_at;
  });
  await cache.refreshPair(id);
  return { key_pair_id: id, publishable_key: publishable, secret_key: secret, created_at: created.toISOString() };
}

interface PairRow {
  id: string;
  status: KeyPairStatus;
  created_at: Date;
  revoked_at: Date | null;
  publishable_key: string;
  secret_last4: string;
}

/**
 * Listing reveals nothing secret: the publishable key is public by design (pages carry it) and the secret key is
 * only ever masked, its one reveal being the answer that generated it (audited as `key_pair.generated`). So a
 * listing writes no audit entry: the dashboard lists keys on every visit to two pages, and those entries buried
 * the ones that matter.
 */
export async function listKeyPairs(pool: pg.Pool, account: Account): Promise<KeyPairList> {
  requireRole(account.role, VIEWERS, "view keys");
  const rows = await query<PairRow>(
    pool,
    `SELECT id, status, created_at, revoked_at, publishable_key, secret_last4 FROM key_pairs
     WHERE org_id = $1 ORDER BY created_at DESC`,
    [account.orgId],
  );
  return {
    key_pairs: rows.map((r) => ({
      key_pair_id: r.id,
      status: r.status,
      created_at: r.created_at.toISOString(),
      revoked_at: r.revoked_at?.toISOString() ?? null,
      publishable_key: r.publishable_key,
      secret_key: maskKey(SECRET_PREFIX, r.secret_last4),
    })),
  };
}

/** Takes effect at once here, and within a second in every other process (NOTIFY). Revoking twice is harmless. */
export async function revokeKeyPair(pool: pg.Pool, cache: KeyCache, account: Account, pairId: string, ip: string): Promise<RevokedKeyPair> {
  requireRole(account.role, MANAGERS, "revoke keys");
  const row = await inTransaction(pool, async (c) => {
    const found = await c.query<{ status: KeyPairStatus; revoked_at: Date | null }>(
      "SELECT status, revoked_at FROM key_pairs WHERE id = $1 AND org_id = $2 FOR UPDATE",
      [pairId, account.orgId],
    );
    if (found.rows.length === 0) throw appError("not_found", "keyPair", { id: pairId });
    if (found.rows[0].status === "revoked") return found.rows[0];
    const updated = await c.query<{ status: KeyPairStatus; revoked_at: Date }>(
      "UPDATE key_pairs SET status = 'revoked', revoked_at = now() WHERE id = $1 RETURNING status, revoked_at",
      [pairId],
    );
    await recordAudit(c, account, { action: "key_pair.revoked", target: pairId, ip });
    await c.query("SELECT pg_notify($1, $2)", [KEY_CHANNEL, `revoked:${pairId}`]);
    return updated.rows[0];
  });
  cache.markRevoked(pairId);
  return { key_pair_id: pairId, status: row.status, revoked_at: row.revoked_at?.toISOString() ?? null };
}
