import type pg from "pg";
import { z } from "zod";
import { appError } from "../errors.js";
import { requireRole, RoleSchema, type Role } from "../auth/roles.js";
import { inTransaction, query } from "../db/transaction.js";
import { recordAudit } from "./audit.js";
import type { Account } from "./session.js";

export const MANAGERS: readonly Role[] = ["OWNER", "ADMIN"];

export const ChangeRoleSchema = z.strictObject({ role: RoleSchema });

export const MemberSchema = z.strictObject({ user_id: z.uuid(), email: z.string(), role: RoleSchema, created_at: z.iso.datetime() });
export type Member = z.infer<typeof MemberSchema>;
export const MemberListSchema = z.strictObject({ members: z.array(MemberSchema) });
export type MemberList = z.infer<typeof MemberListSchema>;

interface MemberRow {
  id: string;
  email: string;
  role: Role;
  created_at: Date;
}

const asMember = (r: MemberRow): Member => ({ user_id: r.id, email: r.email, role: r.role, created_at: r.created_at.toISOString() });

/** OWNER is granted and taken away only by an OWNER. */
export function requireOwnerFor(actor: Account, roles: Role[]): void {
  if (roles.includes("OWNER") && actor.role !== "OWNER") {
    throw appError("forbidden_role", "grantOwner", { role: actor.role });
  }
}

export async function listMembers(pool: pg.Pool, actor: Account): Promise<MemberList> {
  const rows = await query<MemberRow>(pool, "SELECT id, email, role, created_at FROM accounts WHERE org_id = $1 ORDER BY created_at, email", [
    actor.orgId,
  ]);
  return { members: rows.map(asMember) };
}

interface LockedMembers {
  rows: MemberRow[];
  target: MemberRow;
  /** The actor as it stands under the lock: another request may have changed its role since authentication. */
  current: Account;
}

/** Every account of the organisation is locked, so two demotions or removals at once cannot leave it without an OWNER. */
async function lockMembers(c: pg.PoolClient, actor: Account, userId: string, action: string): Promise<LockedMembers> {
  const { rows } = await c.query<MemberRow>("SELECT id, email, role, created_at FROM accounts WHERE org_id = $1 ORDER BY id FOR UPDATE", [
    actor.orgId,
  ]);
  const self = rows.find((r) => r.id === actor.userId);
  // Removed by another request since this one was authenticated: its session has ended with its account.
  if (!self) throw appError("invalid_token", "accountRemoved");
  const target = rows.find((r) => r.id === userId);
  if (!target) throw appError("not_found", "member", { id: userId });
  const current: Account = { ...actor, role: self.role };
  requireRole(current.role, MANAGERS, action);
  return { rows, target, current };
}

const isLastOwner = (rows: MemberRow[], target: MemberRow) => target.role === "OWNER" && rows.filter((r) => r.role === "OWNER").length === 1;

export async function changeRole(pool: pg.Pool, actor: Account, userId: string, role: Role, ip: string): Promise<Member> {
  requireRole(actor.role, MANAGERS, "change roles");
  return inTransaction(pool, async (c) => {
    const { rows, target, current } = await lockMembers(c, actor, userId, "change roles");
    requireOwnerFor(current, [target.role, role]);
    if (target.role === role) return asMember(target);
    if (isLastOwner(rows, target)) throw appError("conflict", "lastOwnerDemoted");
    await c.query("UPDATE accounts SET role = $1 WHERE id = $2", [role, userId]);
    await recordAudit(c, actor, { action: "member.role_changed", target: `${target.email}: ${target.role} → ${role}`, ip });
    return asMember({ ...target, role });
  });
}

/**
 * Deletes the member's account; its sessions and one-time tokens go with it (ON DELETE CASCADE), so its token
 * stops working at its next request in every process. An ADMIN cannot remove an OWNER; nobody removes the last one.
 */
export async function removeMember(pool: pg.Pool, actor: Account, userId: string, ip: string): Promise<Member> {
  requireRole(actor.role, MANAGERS, "remove members");
  return inTransaction(pool, async (c) => {
    const { rows, target, current } = await lockMembers(c, actor, userId, "remove members");
    if (target.role === "OWNER" && current.role !== "OWNER") {
      throw appError("forbidden_role", "removeOwner", { role: current.role });
    }
    if (isLastOwner(rows, target)) throw appError("conflict", "lastOwnerRemoved");
    await c.query("DELETE FROM accounts WHERE id = $1", [userId]);
    await recordAudit(c, actor, { action: "member.removed", target: `${target.email} (${target.role})`, ip });
    return asMember(target);
  });
}
