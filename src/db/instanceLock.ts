import type pg from "pg";
import { log } from "../wire/log.js";

/**
 * The advisory lock every service process holds on its database for its whole life (migrate.ts uses 727274).
 * PostgreSQL scopes advisory locks to the current database: processes on other databases of one server never meet.
 */
export const INSTANCE_LOCK_KEY = 727275;
/** How soon a lost lock is asked for again: a new process may start in between and must be noticed soon after. */
const RETAKE_MS = 500;

/**
 * What each mode means to the others. Without CLUSTER=1 a process keeps its own view of the data and counts its own
 * rate limits, so it must be alone on its database: it holds the lock exclusively. CLUSTER=1 processes share what
 * they must, and hold it shared among themselves, which keeps out a process without it (and it keeps them out).
 */
export type InstanceMode = "alone" | "cluster";

/**
 * The lock held on a connection of its own. If that connection is lost (a database restart), the lock went with
 * it: the lock is taken again as soon as the database answers, and if another process took it meanwhile,
 * `onTakenByOther` is told (the process must stop: it is no longer alone, or no longer among its kind).
 */
export class InstanceLock {
  private client: pg.Client | undefined;
  private closed = false;

  private constructor(
    private readonly connect: () => pg.Client,
    private readonly mode: InstanceMode,
    private readonly onTakenByOther: (reason: string) => void,
  ) {}

  /** Takes the lock or throws, saying which processes hold it and what to change. */
  static async take(connect: () => pg.Client, mode: InstanceMode, onTakenByOther: (reason: string) => void): Promise<InstanceLock> {
    const lock = new InstanceLock(connect, mode, onTakenByOther);
    const refusal = await lock.attempt();
    if (refusal !== undefined) throw new Error(refusal);
    return lock;
  }

  /** Lets the lock go (at the end of a shutdown, once this process has written all it will). */
  async release(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners();
      client.on("error", () => undefined);
      await client.end().catch(() => undefined);
    }
  }

  /** Undefined once held; otherwise why not, for the operator. Throws if the database cannot be reached. */
  private async attempt(): Promise<string | undefined> {
    const client = this.connect();
    client.on("error", (err) => this.lost(client, err.message));
    client.on("end", () => this.lost(client, "connection closed"));
    try {
      await client.connect();
      const take = this.mode === "alone" ? "pg_try_advisory_lock" : "pg_try_advisory_lock_shared";
      const { rows } = await client.query<{ taken: boolean }>(`SELECT ${take}($1) AS taken`, [INSTANCE_LOCK_KEY]);
      if (rows[0].taken) {
        // Released while this attempt was on its way (a shutdown): the lock goes with the connection.
        if (this.closed) discard(client);
        else this.client = client;
        return undefined;
      }
      const holders = await lockHolders(client);
      discard(client);
      return this.refusal(holders);
    } catch (err) {
      discard(client);
      throw err;
    }
  }

  private refusal(holders: string): string {
    const others = holders === "" ? "" : ` (${holders})`;
    const how = "set CLUSTER=1 on every process that shares a database, or give each process a database of its own (docs/scaling.md)";
    return this.mode === "alone"
      ? `another service process already runs on this database${others}; without CLUSTER=1 a process must be alone on its database, or the processes keep diverging views of the data and separate rate limits: ${how}`
      : `a service process without CLUSTER=1 already runs on this database${others}; it must be alone there, so this CLUSTER=1 process cannot join it: ${how}`;
  }

  private lost(client: pg.Client, why: string): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    discard(client);
    log.warn("lost the instance lock's connection; taking the lock again", { error: why });
    this.retake();
  }

  private retake(): void {
    setTimeout(() => {
      if (this.closed) return;
      this.attempt().then(
        (refusal) => {
          if (refusal === undefined) log.info("took the instance lock again");
          else if (!this.closed) this.onTakenByOther(refusal);
        },
        // The database is still away: while it is, no process can write to it, so nothing diverges yet.
        () => this.retake(),
      );
    }, RETAKE_MS).unref();
  }
}

/** The processes holding the lock, as their connections named themselves (application_name) and in what mode. */
async function lockHolders(client: pg.Client): Promise<string> {
  // A bigint key shows in pg_locks as its high half in classid, its low half in objid, and objsubid 1.
  const { rows } = await client.query<{ who: string }>(
    `SELECT coalesce(nullif(a.application_name, ''), 'pid ' || l.pid) || ' on ' || coalesce(host(a.client_addr), 'a local socket') AS who
       FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
      ORDER BY l.pid LIMIT 5`,
    [INSTANCE_LOCK_KEY],
  );
  return rows.map((r) => r.who).join(", ");
}

function discard(client: pg.Client): void {
  client.removeAllListeners();
  client.on("error", () => undefined);
  client.end().catch(() => undefined);
}
