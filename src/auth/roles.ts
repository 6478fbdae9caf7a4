import { z } from "zod";
import { AppError } from "../errors.js";

export const RoleSchema = z.enum(["OWNER", "ADMIN", "DEVELOPER", "MEMBER"]);
export type Role = z.infer<typeof RoleSchema>;

export function requireRole(role: Role, allowed: readonly Role[], action: string): void {
  if (!allowed.includes(role)) {
    throw new AppError("forbidden_role", `role ${role} cannot ${action}; it needs one of ${allowed.join(", ")}`);
  }
}
