import pg from "pg";
import { MODEL_CHANNEL } from "../../src/wire/shardMessages.js";
import { log } from "../../src/wire/log.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { readHeader, storedNames, type StoredNames } from "../model/modelBytes.js";
import type { TrainingScheduler, TrainingShare } from "./trainingScheduler.js";
import { storedModelBytes } from "./storedModelBytes.js";

/**
 * A stored model naming items this process has not seen yet (their batch is on its way: the batch feed delivers
 * within about a second) is loaded once they arrive, looked for again this often and up to this many times; past
 * that it is loaded without them (they are not recommended from it here until the next model).
 */
const MISSING_WAIT_MS = 500;
const MISSING_WAITS = 20;
/** Time the shard gives the names' lookup at a stretch before it answers the requests that came meanwhile… */
const SLICE_MS = 2;
/** …looking at the clock every this many names. */
const NAMES_PER_CHECK = 256;

export interface SharedTrainingOptions {
  databaseUrl: string;
  /** This process (its batch announcer's origin): the lease's holder. */
  holder: string;
  leaseS: number;
  shard: number;
  shards: number;
  index: (org: number) => OrgIndex;
}

/**
 * CLUSTER=1: one process trains each organisation, and the others load its model. The trainer holds the
 * organisation's row of `training_lease` and renews it while it lives, so a process that dies loses it a lease's
 * length later; any process that finds training due takes a lease that has expired (one statement: exactly one
 * of several that try at once gets it). The model goes to `trained_model` with a NOTIFY; the front thread passes
 * the notice to the owning shard, which reads the model, numbers its items this process's way and swaps it in.
 */
export class SharedTraining implements TrainingShare {
  private client: Promise<pg.Client> | undefined;
  /** The version of each organisation's model in place here (trained here or loaded). */
  private readonly versions = new Map<number, number>();
  /** Models announced and not loaded yet, newest version per organisation. */
  private readonly wanted = new Map<number, number>();
  private scheduler: TrainingScheduler | undefined;
  private loading: Promise<void> | undefined;
  private renewer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly o: SharedTrainingOptions) {}

  /** Once the shard is loaded: announced models are loaded from now on, and the leases held renewed. */
  start(scheduler: TrainingScheduler): void {
    this.scheduler = scheduler;
    this.renewer = setInterval(() => void this.renew(), (this.o.leaseS * 1000) / 3);
    this.renewer.unref();
    this.loadWanted();
  }

  /** Stops renewing and closes the connection (the leases held expire by themselves). */
  async stop(): Promise<void> {
    clearInterval(this.renewer);
    const client = this.client;
    this.client = undefined;
    if (client) await (await client).end();
  }

  async claim(org: number): Promise<boolean> {
    try {
      const { rowCount } = await this.query(
        `INSERT INTO training_lease (org, holder, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
         ON CONFLICT (org) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE training_lease.holder = excluded.holder OR training_lease.expires_at < now()`,
        [org, this.o.holder, this.o.leaseS],
      );
      return rowCount === 1;
    } catch (err) {
      // Without PostgreSQL no model can be shared either: training here keeps this process's recommendations fresh.
      log.warn("the training lease could not be asked for; training here", { org, error: (err as Error).message });
      return true;
    }
  }

  /** Stored only while this process still holds the lease: a trainer that lost it must not replace a newer model. */
  async store(org: number, bytes: Uint8Array, interactions: number): Promise<void> {
    const started = performance.now();
    try {
      const { rows } = await this.query<{ version: string }>(
        `WITH stored AS (
           INSERT INTO trained_model (org, version, holder, interactions, model)
           SELECT $1, nextval('trained_model_version'), $2, $3, $4 FROM training_lease WHERE org = $1 AND holder = $2
           ON CONFLICT (org) DO UPDATE SET version = excluded.version, holder = excluded.holder,
             interactions = excluded.interactions, stored_at = now(), model = excluded.model
           RETURNING org, version)
         SELECT version::text, pg_notify('${MODEL_CHANNEL}', org || ' ' || version || ' ' || $2::text) FROM stored`,
        [org, this.o.holder, interactions, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      );
      if (rows.length === 0) {
        log.warn("recommender model not stored: another process took the training lease", { org });
        return;
      }
      this.versions.set(org, Number(rows[0]!.version));
      log.info("recommender model stored", {
        org,
        version: Number(rows[0]!.version),
        bytes: bytes.byteLength,
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      log.warn("recommender model could not be stored for the other processes", { org, error: (err as Error).message });
    }
  }

  /** The version of each of this shard's organisations' stored models: at start, these are loaded, not trained. */
  async storedVersions(): Promise<Map<number, number>> {
    try {
      const { rows } = await this.query<{ org: number; version: string }>("SELECT org, version::text FROM trained_model WHERE org % $1 = $2", [
        this.o.shards,
        this.o.shard,
      ]);
      return new Map(rows.map((r) => [r.org, Number(r.version)]));
    } catch (err) {
      log.warn("stored models could not be listed; training them here", { shard: this.o.shard, error: (err as Error).message });
      return new Map();
    }
  }

  /** Another process stored a model (or, at start, one is stored): loaded unless this one is as new. */
  notice(org: number, version: number): void {
    if (version <= (this.versions.get(org) ?? 0) || version <= (this.wanted.get(org) ?? 0)) return;
    this.wanted.set(org, version);
    this.loadWanted();
  }

  /** Resolves once every model announced so far is loaded (or given up). */
  async catchUp(): Promise<void> {
    while (this.loading) await this.loading;
  }

  private loadWanted(): void {
    if (!this.scheduler || this.loading) return;
    this.loading = (async () => {
      for (const [org, version] of this.wanted) {
        this.wanted.delete(org);
        if (version <= (this.versions.get(org) ?? 0)) continue;
        await this.load(org).catch((err: Error) => log.error("recommender model could not be loaded", { org, error: err.stack }));
      }
    })().finally(() => {
      this.loading = undefined;
      if (this.wanted.size > 0) this.loadWanted();
    });
  }

  /** Reads the organisation's latest model, numbers its items this process's way and puts it in place. */
  private async load(org: number): Promise<void> {
    const started = performance.now();
    const found = await storedModelBytes(await this.db(), org);
    if (!found || found.version <= (this.versions.get(org) ?? 0)) return;
    const index = this.o.index(org);
    const header = readHeader(found.bytes);
    const names = storedNames(found.bytes, header);
    let local = await localNumbers(index, names);
    for (let wait = 0; missing(local) > 0 && wait < MISSING_WAITS; wait++) {
      await new Promise((resolve) => setTimeout(resolve, MISSING_WAIT_MS));
      local = await localNumbers(index, names);
    }
    const dropped = missing(local);
    if (dropped > 0) log.warn("recommender model loaded without items this process has not seen", { org, items: dropped });
    const scheduler = this.scheduler!;
    const model = await scheduler.translate({ kind: "translate", bytes: found.bytes, local, users: index.people.ids.size });
    await scheduler.loaded(index, model, header.interactions);
    this.versions.set(org, found.version);
    log.info("recommender model loaded", {
      org,
      version: found.version,
      items: model.itemCount,
      interactions: header.interactions,
      bytes: found.bytes.byteLength,
      ms: Math.round(performance.now() - started),
    });
  }

  private async renew(): Promise<void> {
    try {
      await this.query("UPDATE training_lease SET expires_at = now() + make_interval(secs => $2) WHERE holder = $1 AND org % $3 = $4", [
        this.o.holder,
        this.o.leaseS,
        this.o.shards,
        this.o.shard,
      ]);
    } catch (err) {
      log.warn("training leases could not be renewed", { shard: this.o.shard, error: (err as Error).message });
    }
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return (await this.db()).query<R>(text, values);
  }

  /** One connection for the shard, opened when first needed and again after it is lost. */
  private db(): Promise<pg.Client> {
    this.client ??= (async () => {
      const client = new pg.Client({ connectionString: this.o.databaseUrl, application_name: `recsvc-training-${this.o.shard}` });
      client.on("error", (err) => {
        log.warn("the shard's training connection was lost", { shard: this.o.shard, error: err.message });
        this.client = undefined;
        // Already broken: ending it only frees the socket, and its failure says nothing more than the error above.
        client.end().catch(() => undefined);
      });
      try {
        await client.connect();
      } catch (err) {
        this.client = undefined;
        throw err;
      }
      return client;
    })();
    return this.client;
  }
}

/**
 * This process's number of each of the trainer's items (−1: not seen here), a few milliseconds at a time with the
 * requests that came meanwhile answered in between: a large catalog's names take far longer than one request.
 */
async function localNumbers(index: OrgIndex, names: StoredNames): Promise<Int32Array> {
  const local = new Int32Array(names.count);
  let sliceStart = performance.now();
  for (let t = 0; t < names.count; t++) {
    if (t % NAMES_PER_CHECK === 0 && performance.now() - sliceStart >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    local[t] = index.catalog.ids.find(names.name(t));
  }
  return local;
}

function missing(local: Int32Array): number {
  let n = 0;
  for (const a of local) if (a < 0) n++;
  return n;
}
