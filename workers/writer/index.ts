import { once } from "node:events";
import { unpack } from "msgpackr";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import { workerData } from "piscina";
import type { BatchPayload } from "../../src/ingest/rows.js";
import { isUnavailable } from "../../src/db/errors.js";
import { copyRows } from "./copyText.js";
import * as sql from "./merge.js";

export interface WriteTask {
  /** A msgpackr-packed BatchPayload, transferred (not copied) from the front thread. */
  payload: Uint8Array;
}

export type WriteResult =
  | { ok: true; events: number; newEvents: number; items: number; users: number }
  | { ok: false; unavailable: boolean; message: string };

const { databaseUrl } = workerData as { databaseUrl: string };
let client: pg.Client | undefined;

/** One connection per writer thread, opened on first use and again after any failure. */
async function connection(): Promise<pg.Client> {
  if (client) return client;
  const c = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000, application_name: "recsvc-writer" });
  c.on("error", () => {
    if (client === c) client = undefined;
  });
  await c.connect();
  await c.query(sql.STAGING_DDL);
  client = c;
  return c;
}

async function copyInto(c: pg.Client, statement: string, text: string): Promise<void> {
  const stream = c.query(copyStreams.from(statement));
  stream.end(text);
  await once(stream, "finish");
}

/** Writes one batch: COPY into staging, merge, commit. The caller acknowledges its requests only after this resolves ok. */
export default async function write(task: WriteTask): Promise<WriteResult> {
  const batch = unpack(task.payload) as BatchPayload;
  let c: pg.Client | undefined;
  try {
    c = await connection();
    await c.query("BEGIN");
    let newEvents = 0;
    if (batch.events.length > 0) {
      await copyInto(c, sql.COPY_EVENTS, copyRows(batch.events));
      newEvents = (await c.query(sql.MERGE_EVENTS)).rowCount ?? 0;
      if (batch.events.some((e) => e[7] !== null)) await c.query(sql.MERGE_ALIASES);
    }
    if (batch.items.length > 0) {
      await copyInto(c, sql.COPY_ITEMS, copyRows(batch.items, true));
      await c.query(sql.MERGE_ITEMS);
    }
    if (batch.users.length > 0) {
      await copyInto(c, sql.COPY_USERS, copyRows(batch.users, true));
      await c.query(sql.MERGE_USERS);
    }
    await c.query("COMMIT");
    return { ok: true, events: batch.events.length, newEvents, items: batch.items.length, users: batch.users.length };
  } catch (err) {
    // The connection's state is unknown after a failure: drop it rather than reuse it.
    if (c) {
      client = undefined;
      c.end().catch(() => undefined);
    }
    return { ok: false, unavailable: isUnavailable(err), message: (err as Error).message };
  }
}
