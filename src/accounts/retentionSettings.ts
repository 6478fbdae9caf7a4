import type pg from "pg";
import { z } from "zod";
import { requireRole, type Role } from "../auth/roles.js";
import { inTransaction, query } from "../db/transaction.js";
import { recordAudit } from "./audit.js";
import type { Account } from "./session.js";

const MANAGERS: readonly Role[] = ["OWNER", "ADMIN"];

export const RetentionSchema = z
  .strictObject({
    events_retention_days: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The organisation's own retention of events in days; null: the service's (`EVENTS_RETENTION_DAYS`)." }),
    service_retention_days: z
      .number()
      .int()
      .meta({ description: "The service's retention (`EVENTS_RETENTION_DAYS`), the longest an organisation gets." }),
    effective_days: z.number().int().meta({ description: "The retention that applies: the shorter of the two." }),
  })
  .meta({ description: "How long the organisation's events are kept, counted from their arrival." });
export type Retention = z.infer<typeof RetentionSchema>;

export function setRetentionSchema(serviceDays: number) {
  return z
    .strictObject({
      events_retention_days: z.number().int().min(1).max(serviceDays, `must be at most the service's retention, ${serviceDays} days`).nullable(),
    })
    .meta({ description: "Sets the organisation's retention of events (null: the service's).", examples: [{ events_retention_days: 90 }] });
}
/** For the OpenAPI description: the body's shape (the upper bound is the running service's EVENTS_RETENTION_DAYS). */
export const SetRetentionSchema = z.strictObject({ events_retention_days: z.number().int().min(1).nullable() }).meta({
  description: "Sets the organisation's retention of events (null: the service's); at most `EVENTS_RETENTION_DAYS`.",
  examples: [{ events_retention_days: 90 }],
});

function shown(days: number | null, serviceDays: number): Retention {
  return { events_retention_days: days, service_retention_days: serviceDays, effective_days: Math.min(days ?? serviceDays, serviceDays) };
}

export async function getRetention(pool: pg.Pool, account: Account, serviceDays: number): Promise<Retention> {
  requireRole(account.role, MANAGERS, "read the retention");
  const rows = await query<{ days: number | null }>(pool, "SELECT events_retention_days AS days FROM organisations WHERE id = $1", [account.orgId]);
  return shown(rows[0]!.days, serviceDays);
}

/**
 * Applied by the retention task (src/db/retention.ts) on its next round: the organisation's rows leave each week's
 * partition received wholly longer ago than its retention.
 */
export async function setRetention(pool: pg.Pool, account: Account, days: number | null, serviceDays: number, ip: string): Promise<Retention> {
  requireRole(account.role, MANAGERS, "change the retention");
  await inTransaction(pool, async (c) => {
    const before = await c.query<{ days: number | null }>("SELECT events_retention_days AS days FROM organisations WHERE id = $1 FOR UPDATE", [
      account.orgId,
    ]);
    if (before.rows[0]!.days === days) return;
    await c.query("UPDATE organisations SET events_retention_days = $2 WHERE id = $1", [account.orgId, days]);
    await recordAudit(c, account, { action: "retention.changed", target: `events_retention_days=${days ?? "service"}`, ip });
  });
  return shown(days, serviceDays);
}
