import { once } from "node:events";
import { unpackMultiple } from "msgpackr";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import { workerData } from "piscina";
import { isUnavailable } from "../../src/db/errors.js";
import { copyRows } from "./copyText.js";

/**
 * One served recommendation: org, id, strategy, mode, user, context item, item ids (a JSON array in UTF-8 as
 * served; its text once decoded here), served at (ms since the epoch; its ISO text once formatted here).
 */
export type ServedRow = [number, string, string, string, string | null, string | null, Uint8Array | string, number | string];

/** ServedRows packed with msgpackr, one after another. */
export interface ServedTask {
  payload: Uint8Array;
}

export type ServedResult = { ok: true } | { ok: false; unavailable: boolean; message: string };

const COPY_SERVED = `COPY served_recommendations (org, recommendation_id, strategy, mode, user_id, context_item_id, items, served_at)
  FROM STDIN`;

const { databaseUrl } = workerData as { databaseUrl: string };
let client: pg.Client | undefined;

async function connection(): Promise<pg.Client> {
  if (client) return client;
  const c = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000, application_name: "recsvc-attribution" });
  c.on("error", () => {
    if (client === c) client = undefined;
  });
  await c.connect();
  client = c;
  return c;
}

/** Writes a batch of served recommendations with one COPY (one statement, one commit). */
export default async function writeServed(task: ServedTask): Promise<ServedResult> {
  const rows = unpackMultiple(task.payload) as ServedRow[];
  // Formatted here rather than per request on the front thread.
  for (const r of rows) {
    if (typeof r[6] !== "string") r[6] = Buffer.from(r[6].buffer, r[6].byteOffset, r[6].byteLength).toString("utf8");
    r[7] = new Date(r[7]).toISOString();
  }
  let c: pg.Client | undefined;
  try {
    c = await connection();
    const stream = c.query(copyStreams.from(COPY_SERVED));
    stream.end(copyRows(rows));
    await once(stream, "finish");
    return { ok: true };
  } catch (err) {
    if (c) {
      client = undefined;
      c.end().catch(() => undefined);
    }
    return { ok: false, unavailable: isUnavailable(err), message: (err as Error).message };
  }
}
