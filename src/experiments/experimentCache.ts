import type pg from "pg";
import { ChannelListener } from "../db/listener.js";
import { log } from "../wire/log.js";
import { RunningExperiment } from "./running.js";
import type { Variant } from "./schemas.js";

/** NOTIFY channel; the payload is the organisation's seq whose experiments changed. */
export const EXPERIMENT_CHANNEL = "experiments";

interface RunningRow {
  org: number;
  id: string;
  scenario: string;
  holdout: number;
  variants: Variant[];
}

const SELECT_RUNNING = "SELECT org, id, scenario, holdout, variants FROM experiments WHERE stopped_at IS NULL";

/**
 * The running experiments of every organisation, by scenario, held in memory so that a recommend request
 * pays no database round trip to find its experiment. Loaded at start and after every reconnection of the
 * LISTEN connection; a creation or a stop in any process on the same database notifies the channel in its
 * transaction, so every process has it within about a second (this process refreshes before it answers).
 */
export class ExperimentCache {
  private readonly byOrg = new Map<number, Map<string, RunningExperiment>>();
  /**
   * Reads are numbered as they start; per organisation, the number of the read its experiments came from. A
   * read that started later saw a later state, so a read that finishes after a later-started one is dropped
   * (a reload after a lost connection must not put back an experiment a refresh has since seen stopped).
   */
  private readonly placedFrom = new Map<number, number>();
  private reads = 0;
  private readonly listener: ChannelListener;

  constructor(
    private readonly pool: pg.Pool,
    connect: () => pg.Client,
  ) {
    this.listener = new ChannelListener(
      connect,
      EXPERIMENT_CHANNEL,
      (payload) => this.onNotice(payload),
      () => this.reload(),
    );
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  /** The running experiment on an organisation's scenario, if any. */
  running(org: number, scenario: string): RunningExperiment | undefined {
    return this.byOrg.get(org)?.get(scenario);
  }

  /**
   * Reads the organisation's running experiments again. Never fails: a change already committed must not turn
   * its answer into an error, and this process's own listener hears the change's notice too, and retries then.
   */
  async refreshOrg(org: number): Promise<void> {
    const read = ++this.reads;
    let rows: RunningRow[];
    try {
      rows = (await this.pool.query<RunningRow>(`${SELECT_RUNNING} AND org = $1`, [org])).rows;
    } catch (err) {
      log.warn("experiment refresh failed", { org, error: (err as Error).message });
      return;
    }
    this.place(org, rows, read);
  }

  private async reload(): Promise<void> {
    const read = ++this.reads;
    const { rows } = await this.pool.query<RunningRow>(SELECT_RUNNING);
    const byOrg = new Map<number, RunningRow[]>([...this.byOrg.keys()].map((org) => [org, []]));
    for (const r of rows) byOrg.set(r.org, [...(byOrg.get(r.org) ?? []), r]);
    for (const [org, running] of byOrg) this.place(org, running, read);
    log.info("running experiments loaded", { experiments: rows.length });
  }

  private place(org: number, rows: RunningRow[], read: number): void {
    if ((this.placedFrom.get(org) ?? 0) > read) return;
    this.placedFrom.set(org, read);
    if (rows.length === 0) {
      this.byOrg.delete(org);
      return;
    }
    this.byOrg.set(org, new Map(rows.map((r) => [r.scenario, new RunningExperiment(r.id, r.scenario, r.holdout, r.variants)])));
  }

  private onNotice(payload: string): void {
    const org = Number(payload);
    if (!Number.isSafeInteger(org)) return;
    void this.refreshOrg(org);
  }
}
