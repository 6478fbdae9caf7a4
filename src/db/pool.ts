import pg from "pg";
import { log } from "../wire/log.js";

/** Connection attempts give up fast so that an outage turns into a 503, not a hung request. */
export const CONNECT_TIMEOUT_MS = 2000;

export function createPool(url: string, max = 8): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30000,
    application_name: "recsvc",
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on("error", (err) => log.warn("idle database connection lost", { error: err.message }));
  return pool;
}
