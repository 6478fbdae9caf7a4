import { once } from "node:events";
import type pg from "pg";
import copyStreams from "pg-copy-streams";
import { isUnavailable } from "../../src/wire/pgErrors.js";
import type { ServedResult, ServedTask } from "../../src/wire/writeTasks.js";
import { BINARY_HEADER, BINARY_TRAILER } from "./binaryCopy.js";
import { WriterConnection } from "./connection.js";

const COPY_SERVED = `COPY served_recommendations (org, recommendation_id, strategy, scenario, mode, user_id, context_item_id, items, served_at, experiment_id, variant)
  FROM STDIN (FORMAT binary)`;

const connection = new WriterConnection("recsvc-attribution");

/** Writes a batch of served recommendations with one COPY (one statement, one commit), its tuples as they came. */
export default async function writeServed(task: ServedTask): Promise<ServedResult> {
  let c: pg.Client | undefined;
  try {
    c = await connection.get();
    const stream = c.query(copyStreams.from(COPY_SERVED));
    stream.write(BINARY_HEADER);
    stream.write(task.payload);
    stream.end(BINARY_TRAILER);
    await once(stream, "finish");
    return { ok: true };
  } catch (err) {
    if (c) connection.drop(c);
    return { ok: false, unavailable: isUnavailable(err), message: (err as Error).message };
  }
}
