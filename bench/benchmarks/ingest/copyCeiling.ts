/**
 * Ceiling (a): the same rows COPYed straight into a table keyed by (org, event_id), 10,000 rows per COPY (one
 * transaction each), from `clients` connections at once (1 is the ceiling the target refers to; the server
 * itself writes through INGEST_WRITERS connections, so the 2-client figure is printed alongside).
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import { randomEvents } from "../traffic/events.js";
import { DURATION_S, WARMUP_S } from "../../kit/settings.js";

const CHUNK_ROWS = 10_000;
const COLUMNS = "org, event_id, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context, occurred_at";

/** Rows per second stored by `clients` connections COPYing at once. */
export async function copyCeiling(databaseUrl: string, org: number, clients: number): Promise<number> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const conns: pg.Client[] = [];
  try {
    await createEventsLike(admin, "bench_copy_ceiling");
    for (let i = 0; i < clients; i++) conns.push(await connect(databaseUrl));
    let rows = 0;
    let measuring = false;
    // Each client: warm-up, then the measured stretch; its next chunk is built while the current one is written.
    const loop = async (c: pg.Client, until: number) => {
      let next = eventRows(org, CHUNK_ROWS);
      while (performance.now() < until) {
        const p = copyRows(c, "bench_copy_ceiling", next);
        next = eventRows(org, CHUNK_ROWS);
        await p;
        if (measuring) rows += CHUNK_ROWS;
      }
    };
    const warmUntil = performance.now() + WARMUP_S * 1000;
    await Promise.all(conns.map((c) => loop(c, warmUntil)));
    measuring = true;
    const started = performance.now();
    await Promise.all(conns.map((c) => loop(c, started + DURATION_S * 1000)));
    const seconds = (performance.now() - started) / 1000;
    const { rows: counted } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM bench_copy_ceiling");
    await admin.query("DROP TABLE bench_copy_ceiling");
    if (Number(counted[0].n) < rows) throw new Error("COPY ceiling: fewer rows stored than sent");
    return rows / seconds;
  } finally {
    for (const c of conns) await c.end().catch(() => undefined);
    await admin.end();
  }
}

/** A fresh table shaped like `events`, keyed by (org, event_id): the one unique B-tree per event the service pays too (in `event_ids`). */
export async function createEventsLike(admin: pg.Client, table: string): Promise<void> {
  await admin.query(`DROP TABLE IF EXISTS ${table}`);
  await admin.query(`CREATE TABLE ${table} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS, PRIMARY KEY (org, event_id))`);
}

export async function connect(databaseUrl: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  return c;
}

/** `count` events with random v4 ids, in COPY text format, all stamped now. */
export function eventRows(org: number, count: number): string {
  const at = new Date().toISOString();
  let s = "";
  for (let i = 0; i < count; i++) {
    s += `${org}\t${randomUUID()}\t${randomEvents.userId()}\t${randomEvents.itemId()}\tengagement\tview\t1\t\\N\t\\N\t\\N\t${at}\n`;
  }
  return s;
}

/** One COPY of `text` into `table`: one statement, one transaction. */
export async function copyRows(c: pg.Client, table: string, text: string): Promise<void> {
  const stream = c.query(copyStreams.from(`COPY ${table} (${COLUMNS}) FROM STDIN`));
  await new Promise<void>((resolve, reject) => {
    stream.once("finish", resolve);
    stream.once("error", reject);
    stream.end(text);
  });
}
