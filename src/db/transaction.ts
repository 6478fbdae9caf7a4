import type pg from "pg";
import { isUnavailable } from "../wire/pgErrors.js";
import { toAppError } from "./errors.js";

/** Runs fn in one transaction; database outages surface as 503 `unavailable`. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw toAppError(err);
  }
  let broken = false;
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    broken = isUnavailable(err);
    if (!broken) await client.query("ROLLBACK").catch(() => undefined);
    throw toAppError(err);
  } finally {
    client.release(broken); // a connection that failed is dropped, not handed to the next caller
  }
}

export async function query<R extends pg.QueryResultRow>(pool: pg.Pool, text: string, values: unknown[] = []): Promise<R[]> {
  try {
    return (await pool.query<R>(text, values)).rows;
  } catch (err) {
    throw toAppError(err);
  }
}
