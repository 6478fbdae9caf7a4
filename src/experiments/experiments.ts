import { randomUUID } from "node:crypto";
import type pg from "pg";
import { recordAudit, type OrgCaller } from "../accounts/audit.js";
import { inTransaction, query } from "../db/transaction.js";
import { appError } from "../errors.js";
import { EXPERIMENT_CHANNEL } from "./experimentCache.js";
import { ExperimentIdSchema, type CreateExperiment, type Experiment, type Variant } from "./schemas.js";

interface ExperimentRow {
  id: string;
  name: string;
  scenario: string;
  variants: Variant[];
  holdout: number;
  created_at: Date;
  stopped_at: Date | null;
}

const COLUMNS = "id, name, scenario, variants, holdout, created_at, stopped_at";
/** Serialises creations per organisation (its count and its scenarios' running experiment are checked first). */
const CREATE_LOCK = 727_275;

function shown(r: ExperimentRow): Experiment {
  return {
    experiment_id: r.id,
    name: r.name,
    scenario: r.scenario,
    status: r.stopped_at === null ? "running" : "stopped",
    variants: r.variants,
    holdout: r.holdout,
    created_at: r.created_at.toISOString(),
    stopped_at: r.stopped_at?.toISOString() ?? null,
  };
}

/**
 * Stores a running experiment: at most `max` experiments per organisation (running or stopped: 403
 * quota_exceeded beyond), at most one running per scenario (409 conflict). Audited; every process is told.
 */
export async function createExperiment(pool: pg.Pool, who: OrgCaller, e: CreateExperiment, max: number): Promise<Experiment> {
  const id = randomUUID();
  return inTransaction(pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock($1, $2)", [CREATE_LOCK, who.org]);
    const { rows: counts } = await c.query<{ total: number; running: string | null }>(
      `SELECT count(*)::int AS total, (SELECT id::text FROM experiments WHERE org = $1 AND scenario = $2 AND stopped_at IS NULL) AS running
       FROM experiments WHERE org = $1`,
      [who.org, e.scenario],
    );
    const { total, running } = counts[0]!;
    if (running !== null) throw appError("conflict", "experimentRunning", { scenario: e.scenario, id: running });
    if (total >= max) throw appError("quota_exceeded", "quota", { measure: "experiments", limit: max, has: total, what: "this request", adds: 1 });
    const { rows } = await c.query<ExperimentRow>(
      `INSERT INTO experiments (org, id, name, scenario, variants, holdout, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [who.org, id, e.name, e.scenario, JSON.stringify(e.variants), e.holdout, who.via],
    );
    await recordAudit(c, who.actor, { action: "experiment.created", target: `experiment ${id} on ${e.scenario}, by ${who.via}`, ip: who.ip });
    await c.query("SELECT pg_notify($1, $2)", [EXPERIMENT_CHANNEL, String(who.org)]);
    return shown(rows[0]!);
  });
}

export async function listExperiments(pool: pg.Pool, org: number): Promise<Experiment[]> {
  const rows = await query<ExperimentRow>(pool, `SELECT ${COLUMNS} FROM experiments WHERE org = $1 ORDER BY created_at DESC, id`, [org]);
  return rows.map(shown);
}

/** The experiment, or 404 not_found (an id that is not a UUID cannot name one). */
export async function readExperiment(pool: pg.Pool, org: number, id: string): Promise<Experiment> {
  if (!ExperimentIdSchema.shape.experiment_id.safeParse(id).success) throw appError("not_found", "experiment", { id });
  const rows = await query<ExperimentRow>(pool, `SELECT ${COLUMNS} FROM experiments WHERE org = $1 AND id = $2`, [org, id]);
  if (rows.length === 0) throw appError("not_found", "experiment", { id });
  return shown(rows[0]!);
}

/** Stops a running experiment (audited, every process told); stopping a stopped one changes nothing. */
export async function stopExperiment(pool: pg.Pool, who: OrgCaller, id: string): Promise<Experiment> {
  const current = await readExperiment(pool, who.org, id);
  if (current.status === "stopped") return current;
  const stopped = await inTransaction(pool, async (c) => {
    const { rows } = await c.query<ExperimentRow>(
      `UPDATE experiments SET stopped_at = now() WHERE org = $1 AND id = $2 AND stopped_at IS NULL RETURNING ${COLUMNS}`,
      [who.org, id],
    );
    // Stopped meanwhile by another request, which audited it.
    if (rows.length === 0) return undefined;
    await recordAudit(c, who.actor, { action: "experiment.stopped", target: `experiment ${id} on ${current.scenario}, by ${who.via}`, ip: who.ip });
    await c.query("SELECT pg_notify($1, $2)", [EXPERIMENT_CHANNEL, String(who.org)]);
    return shown(rows[0]!);
  });
  return stopped ?? readExperiment(pool, who.org, id);
}
