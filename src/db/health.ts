import type pg from "pg";
import { log } from "../wire/log.js";

const PROBE_EVERY_MS = 500;

/**
 * Whether the database answers. Writers report failures here; while it is down, a probe runs twice a second
 * so that ingestion resumes by itself as soon as PostgreSQL is back.
 */
export class DatabaseHealth {
  private up = true;
  private probing = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pool: pg.Pool) {}

  get isUp(): boolean {
    return this.up;
  }

  markDown(reason: string): void {
    if (!this.up) return;
    this.up = false;
    log.warn("database unreachable; refusing ingestion until it answers again", { reason });
    // probe() cannot reject: check() answers false for any failure.
    this.timer = setInterval(() => void this.probe(), PROBE_EVERY_MS);
    this.timer.unref();
  }

  async check(): Promise<boolean> {
    try {
      await this.pool.query("SELECT 1");
      return true;
    } catch {
      return false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One probe at a time: a connect attempt to a dead server can outlast the probe interval. */
  private async probe(): Promise<void> {
    if (this.up || this.probing) return;
    this.probing = true;
    const ok = await this.check();
    this.probing = false;
    if (!ok || this.up) return;
    this.up = true;
    this.stop();
    log.info("database reachable again; ingestion resumes");
  }
}
