import { randomUUID } from "node:crypto";
import type pg from "pg";
import { recordAudit, type OrgCaller } from "../accounts/audit.js";
import { inTransaction, query } from "../db/transaction.js";
import { appError } from "../errors.js";
import type { FilterValue } from "../wire/rank.js";
import { RULES_CHANNEL, type RuleSet, type RuleWire } from "../wire/rules.js";
import type { Rule, RuleBody, RuleDefinition } from "./schema.js";

interface RuleRow {
  id: string;
  org: number;
  name: string;
  enabled: boolean;
  definition: RuleDefinition;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = "id, org, name, enabled, definition, created_at, updated_at";

function toRule(r: RuleRow): Rule {
  return {
    rule_id: r.id,
    name: r.name,
    enabled: r.enabled,
    ...r.definition,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

function definitionOf(body: RuleBody): RuleDefinition {
  const { name: _name, enabled: _enabled, ...definition } = body;
  return definition;
}

/** The organisation's rules, oldest first (the order they apply in within an action). */
export async function listRules(pool: pg.Pool, org: number): Promise<Rule[]> {
  const rows = await query<RuleRow>(pool, `SELECT ${COLUMNS} FROM rules WHERE org = $1 ORDER BY created_at, id`, [org]);
  return rows.map(toRule);
}

/**
 * Each change, in one transaction: the organisation's rules are changed one request at a time (an advisory lock
 * on it), its rule set takes the next version, the change is audited, and the other processes are told (the
 * notice leaves at the commit). `max`: RULES_MAX; one more is 403 `quota_exceeded`.
 */
export async function createRule(pool: pg.Pool, who: OrgCaller, body: RuleBody, max: number, origin: string): Promise<Rule> {
  return inTransaction(pool, async (c) => {
    await lockRules(c, who.org);
    const { rows } = await c.query<{ n: string }>("SELECT count(*) AS n FROM rules WHERE org = $1", [who.org]);
    const has = Number(rows[0]!.n);
    if (has >= max) throw appError("quota_exceeded", "quota", { measure: "rules", limit: max, has, what: "this rule", adds: 1 });
    const inserted = await c.query<RuleRow>(
      `INSERT INTO rules (id, org, name, enabled, definition) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [randomUUID(), who.org, body.name, body.enabled, definitionOf(body)],
    );
    const rule = toRule(inserted.rows[0]!);
    await changed(c, who, "rule.created", rule, origin);
    return rule;
  });
}

/** Replaces the rule's whole definition (PUT). */
export async function updateRule(pool: pg.Pool, who: OrgCaller, id: string, body: RuleBody, origin: string): Promise<Rule> {
  return inTransaction(pool, async (c) => {
    await lockRules(c, who.org);
    const updated = await c.query<RuleRow>(
      `UPDATE rules SET name = $3, enabled = $4, definition = $5, updated_at = now() WHERE org = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [who.org, id, body.name, body.enabled, definitionOf(body)],
    );
    if (updated.rows.length === 0) throw appError("not_found", "rule", { id });
    const rule = toRule(updated.rows[0]!);
    await changed(c, who, "rule.updated", rule, origin);
    return rule;
  });
}

export async function deleteRule(pool: pg.Pool, who: OrgCaller, id: string, origin: string): Promise<Rule> {
  return inTransaction(pool, async (c) => {
    await lockRules(c, who.org);
    const deleted = await c.query<RuleRow>(`DELETE FROM rules WHERE org = $1 AND id = $2 RETURNING ${COLUMNS}`, [who.org, id]);
    if (deleted.rows.length === 0) throw appError("not_found", "rule", { id });
    const rule = toRule(deleted.rows[0]!);
    await changed(c, who, "rule.deleted", rule, origin);
    return rule;
  });
}

async function lockRules(c: pg.PoolClient, org: number): Promise<void> {
  await c.query("SELECT pg_advisory_xact_lock(727276, $1)", [org]);
}

async function changed(
  c: pg.PoolClient,
  who: OrgCaller,
  action: "rule.created" | "rule.updated" | "rule.deleted",
  rule: Rule,
  origin: string,
): Promise<void> {
  await c.query(
    `INSERT INTO rule_sets (org, version) VALUES ($1, nextval('rule_versions'))
     ON CONFLICT (org) DO UPDATE SET version = EXCLUDED.version`,
    [who.org],
  );
  const target = `rule ${rule.rule_id} ${JSON.stringify(rule.name)} (${rule.action}${rule.enabled ? "" : ", disabled"}), by ${who.via}`;
  await recordAudit(c, who.actor, { action, target, ip: who.ip });
  await c.query("SELECT pg_notify($1, $2)", [RULES_CHANNEL, `${who.org} ${origin}`]);
}

interface SetRow {
  org: number;
  version: string;
  name: string | null;
  definition: RuleDefinition | null;
}

/**
 * Rule sets as the recommender threads take them: the enabled rules of one organisation (or of every one with a
 * rule set), oldest first, with the version, read in one statement so that the two agree.
 */
export async function readRuleSets(db: Pick<pg.Pool, "query">, org?: number): Promise<RuleSet[]> {
  const { rows } = await db.query<SetRow>(
    `SELECT s.org, s.version::text AS version, r.name, r.definition
       FROM rule_sets s LEFT JOIN rules r ON r.org = s.org AND r.enabled
      WHERE $1::integer IS NULL OR s.org = $1
      ORDER BY s.org, r.created_at, r.id`,
    [org ?? null],
  );
  const sets = new Map<number, RuleSet>();
  for (const row of rows) {
    let set = sets.get(row.org);
    if (!set) sets.set(row.org, (set = { org: row.org, version: Number(row.version), rules: [] }));
    if (row.name !== null && row.definition !== null) set.rules.push(toWire(row.name, row.definition));
  }
  return [...sets.values()];
}

function toWire(name: string, d: RuleDefinition): RuleWire {
  return {
    name,
    action: d.action,
    items: d.items as Record<string, FilterValue>,
    scenarios: d.scenarios ?? null,
    strategies: d.strategies ?? null,
    factor: d.factor ?? null,
    position: d.position ?? null,
    share: d.share ?? null,
    startsS: d.starts_at === undefined ? null : Date.parse(d.starts_at) / 1000,
    endsS: d.ends_at === undefined ? null : Date.parse(d.ends_at) / 1000,
  };
}
