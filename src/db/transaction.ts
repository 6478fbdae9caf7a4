import type pg from "pg";
import { toAppError } from "./errors.js";

/** Runs fn in one transaction; database outages surface as 503 `unavailable`. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw toAppError(err);
  }
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw toAppError(err);
  } finally {
    client.release();
  }
}

export async function query<R extends pg.QueryResultRow>(pool: pg.Pool, text: string, values: unknown[] = []): Promise<R[]> {
  try {
    return (await pool.query<R>(text, values)).rows;
  } catch (err) {
    throw toAppError(err);
  }
}
