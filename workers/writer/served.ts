import { once } from "node:events";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import { workerData } from "piscina";
import { isUnavailable } from "../../src/db/errors.js";
import { BINARY_HEADER, BINARY_TRAILER } from "./binaryCopy.js";

/** Served recommendations as binary COPY tuples, one after another (src/recommend/servedTuple.ts). */
export interface ServedTask {
  payload: Uint8Array;
}

export type ServedResult = { ok: true } | { ok: false; unavailable: boolean; message: string };

const COPY_SERVED = `COPY served_recommendations (org, recommendation_id, strategy, mode, user_id, context_item_id, items, served_at)
  FROM STDIN (FORMAT binary)`;

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

/** Writes a batch of served recommendations with one COPY (one statement, one commit), its tuples as they came. */
export default async function writeServed(task: ServedTask): Promise<ServedResult> {
  let c: pg.Client | undefined;
  try {
    c = await connection();
    const stream = c.query(copyStreams.from(COPY_SERVED));
    stream.write(BINARY_HEADER);
    stream.write(task.payload);
    stream.end(BINARY_TRAILER);
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
