/**
 * Runs cases against the server: `concurrency` lanes of ordinary cases and `slowLanes` lanes of slow clients,
 * until the case count or the deadline is reached, or the server dies (then the cases that were in flight,
 * or had just lost their connection, are the suspects).
 */
import type { FuzzCase } from "./case.js";
import { checkExchange } from "./checks.js";
import type { Fixture } from "./fixtures.js";
import { buildCase, SLOW_BASE } from "./mutate.js";
import type { Tally } from "./report.js";
import { sendCase, type SendLimits } from "./sender.js";
import { log } from "../kit/settings.js";

interface RunPlan {
  seed: number;
  fx: Fixture;
  limits: SendLimits;
  concurrency: number;
  slowLanes: number;
  /** Stop after this many ordinary cases (slow clients not counted). */
  maxCases: number;
  /** Stop at this time (performance.now()). */
  deadline: number;
  /** Only these cases (a replay), in order, one at a time. */
  only?: number[];
}

const RECENT_MS = 3000;

export class Runner {
  private stopped = false;
  private readonly inFlight = new Map<number, FuzzCase>();
  /** Cases that lost their connection without an answer lately: a crash's culprit may be among them. */
  private recentDrops: Array<{ at: number; c: FuzzCase }> = [];
  readonly suspects: FuzzCase[] = [];
  private next = 0;
  private nextSlow = SLOW_BASE;

  constructor(
    private readonly plan: RunPlan,
    private readonly tally: Tally,
  ) {}

  /** The server exited: stop, and keep what may have killed it. */
  serverDied(): void {
    if (this.stopped) return;
    this.stopped = true;
    const now = performance.now();
    this.suspects.push(...this.inFlight.values(), ...this.recentDrops.filter((d) => now - d.at < RECENT_MS).map((d) => d.c));
  }

  async run(): Promise<void> {
    const progress = setInterval(() => log(`  ${this.tally.cases} cases, ${this.tally.failureCount} failures`), 10_000);
    try {
      if (this.plan.only) {
        for (const index of this.plan.only) if (!this.stopped) await this.one(index);
        return;
      }
      let mainDone = false;
      const main = Promise.all(Array.from({ length: this.plan.concurrency }, () => this.lane(() => this.takeMain()))).then(() => (mainDone = true));
      const slow = Promise.all(Array.from({ length: this.plan.slowLanes }, () => this.lane(() => (mainDone ? undefined : this.nextSlow++))));
      await Promise.all([main, slow]);
    } finally {
      clearInterval(progress);
    }
  }

  private takeMain(): number | undefined {
    if (this.next >= this.plan.maxCases || performance.now() >= this.plan.deadline) return undefined;
    return this.next++;
  }

  private async lane(take: () => number | undefined): Promise<void> {
    for (let index = take(); index !== undefined && !this.stopped; index = take()) await this.one(index);
  }

  private async one(index: number): Promise<void> {
    const c = buildCase(this.plan.seed, index, this.plan.fx);
    this.inFlight.set(index, c);
    const x = await sendCase(this.plan.fx.port, c, this.plan.limits);
    this.inFlight.delete(index);
    if (this.stopped) return; // the server is gone: what follows says nothing of this case
    if (x.answers.length === 0 && (x.ending === "closed" || x.ending === "reset")) {
      const now = performance.now();
      this.recentDrops = [...this.recentDrops.filter((d) => now - d.at < RECENT_MS), { at: now, c }];
    }
    this.tally.add(c, x, checkExchange(c, x, this.plan.limits));
  }
}
