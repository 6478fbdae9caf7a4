import { randomBytes } from "node:crypto";
import type pg from "pg";

/** The JWT secret: from settings when given, else generated once and kept in the database for every process. */
export async function jwtSecret(pool: pg.Pool, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await pool.query("INSERT INTO settings (name, value) VALUES ('jwt_secret', $1) ON CONFLICT (name) DO NOTHING", [
    randomBytes(48).toString("base64url"),
  ]);
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM settings WHERE name = 'jwt_secret'");
  return rows[0].value;
}
