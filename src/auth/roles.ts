import { z } from "zod";
import { appError } from "../errors.js";

export const RoleSchema = z.enum(["OWNER", "ADMIN", "DEVELOPER", "MEMBER"]);
export type Role = z.infer<typeof RoleSchema>;

export function requireRole(role: Role, allowed: readonly Role[], action: string): void {
  if (!allowed.includes(role)) {
    throw appError("forbidden_role", "action", { role, action, allowed: allowed.join(", ") });
  }
}
